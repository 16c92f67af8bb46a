/**
 * Which physical GPU a DeviceRef means (DESIGN.md section 5).
 *
 * A board is host + UUID, with the PCI bus id breaking ties: collectors that mask identifiers
 * print GPU-00000000-0000-0000-0000-000000000000 for every board of a host. Sources name
 * boards with different subsets of fields (XML: uuid + PCI + index; compute-apps: uuid + PCI;
 * dmon/pmon: index only; a CSV may give the uuid alone), so resolution happens once all refs
 * are known, which makes it independent of the order the inputs were read in:
 *  1. refs are taken most specific first; each joins the board whose known fields do not
 *     conflict with its own, or starts a new board when every board conflicts;
 *  2. when several boards fit, the one agreeing on the most fields wins; a tie means the
 *     ref cannot be placed and it is reported, never guessed (two GPUs are never merged);
 *  3. a UUID that is masked, or that shows up with two PCI bus ids on one host, identifies
 *     nothing: it neither proves nor breaks a match. A distinctive UUID outranks the index,
 *     which can shift between reboots.
 * MIG devices are (board, GPU instance id); their refs carry the parent board's fields.
 */
import type { DeviceRef } from '../model/index.js';

export interface BoardIdentity {
  host: string;
  uuid?: string;
  pciBusId?: string;
  index?: number;
}

export interface AmbiguousRef {
  identity: BoardIdentity;
  /** How many boards fit it equally well. */
  candidates: number;
}

export interface BoardResolution {
  /** Boards with every field any of their refs gave. */
  boards: BoardIdentity[];
  /** Board number for each identity key (see `boardKey`); absent for ambiguous refs. */
  boardOf: ReadonlyMap<string, number>;
  ambiguous: AmbiguousRef[];
}

const MASKED_UUID = /^GPU-[0-]+$/i;

/** A UUID a collector masked (all zeros): it names no board. */
export function isMaskedUuid(uuid: string): boolean {
  return MASKED_UUID.test(uuid);
}

/**
 * Distinctive UUIDs that boards on more than one host carry, with those hosts (sorted). A UUID
 * names one board, so this is a renamed host, a cloned host label or a collector's error: the
 * boards stay apart (ids get `@host`) and the analyzer warns. Masked UUIDs are on every host
 * of a fleet that masks them and are not reported.
 */
export function uuidsOnSeveralHosts(boards: readonly BoardIdentity[]): Map<string, string[]> {
  const hostsByUuid = new Map<string, Set<string>>();
  for (const { uuid, host } of boards) {
    if (uuid === undefined || isMaskedUuid(uuid)) continue;
    const hosts = hostsByUuid.get(uuid) ?? new Set<string>();
    hosts.add(host);
    hostsByUuid.set(uuid, hosts);
  }
  return new Map([...hostsByUuid].filter(([, hosts]) => hosts.size > 1).map(([uuid, hosts]) => [uuid, [...hosts].sort()]));
}

export function boardIdentityOf(ref: DeviceRef): BoardIdentity {
  const identity: BoardIdentity = { host: ref.host };
  if (ref.uuid !== undefined && ref.uuid !== '') identity.uuid = ref.uuid;
  if (ref.pciBusId !== undefined && ref.pciBusId !== '') identity.pciBusId = ref.pciBusId;
  if (ref.index !== undefined && Number.isInteger(ref.index)) identity.index = ref.index;
  return identity;
}

export function boardKey(identity: BoardIdentity): string {
  return `${identity.host}\u0000${identity.uuid ?? ''}\u0000${identity.pciBusId ?? ''}\u0000${identity.index ?? ''}`;
}

/**
 * Key of a device ref: its board plus, for a MIG device, the GPU instance. Called for every
 * sample, so it builds the same string as `boardKey(boardIdentityOf(ref))` without the
 * intermediate identity object.
 */
export function refKey(ref: DeviceRef): string {
  const uuid = ref.uuid ?? '';
  const pciBusId = ref.pciBusId ?? '';
  const index = ref.index !== undefined && Number.isInteger(ref.index) ? ref.index : '';
  return `${ref.host}\u0000${uuid}\u0000${pciBusId}\u0000${index}\u0000${ref.gpuInstanceId ?? ''}`;
}

function knownFieldCount(identity: BoardIdentity): number {
  return (identity.uuid === undefined ? 0 : 1) + (identity.pciBusId === undefined ? 0 : 1) + (identity.index === undefined ? 0 : 1);
}

/** UUIDs that name one board: not masked, and never seen with two PCI bus ids on one host. */
function distinctiveUuids(identities: readonly BoardIdentity[]): Set<string> {
  const pciByUuid = new Map<string, Set<string>>();
  for (const identity of identities) {
    if (identity.uuid === undefined || isMaskedUuid(identity.uuid)) continue;
    const key = `${identity.host}\u0000${identity.uuid}`;
    const pcis = pciByUuid.get(key) ?? new Set<string>();
    if (identity.pciBusId !== undefined) pcis.add(identity.pciBusId);
    pciByUuid.set(key, pcis);
  }
  return new Set([...pciByUuid].filter(([, pcis]) => pcis.size <= 1).map(([key]) => key));
}

export function resolveBoards(identities: readonly BoardIdentity[]): BoardResolution {
  const distinctive = distinctiveUuids(identities);
  const sameDistinctiveUuid = (a: BoardIdentity, b: BoardIdentity): boolean =>
    a.uuid !== undefined && a.uuid === b.uuid && distinctive.has(`${a.host}\u0000${a.uuid}`);

  const conflicts = (board: BoardIdentity, ref: BoardIdentity): boolean => {
    if (board.host !== ref.host) return true;
    if (board.uuid !== undefined && ref.uuid !== undefined && board.uuid !== ref.uuid) return true;
    if (board.pciBusId !== undefined && ref.pciBusId !== undefined && board.pciBusId !== ref.pciBusId) return true;
    if (sameDistinctiveUuid(board, ref)) return false;
    return board.index !== undefined && ref.index !== undefined && board.index !== ref.index;
  };
  const agreement = (board: BoardIdentity, ref: BoardIdentity): number =>
    (sameDistinctiveUuid(board, ref) ? 1 : 0)
    + (board.pciBusId !== undefined && board.pciBusId === ref.pciBusId ? 1 : 0)
    + (board.index !== undefined && board.index === ref.index ? 1 : 0);

  const unique = new Map<string, BoardIdentity>();
  for (const identity of identities) unique.set(boardKey(identity), identity);
  // Most specific first; among equals, first seen first (Array.prototype.sort is stable).
  const ordered = [...unique.entries()].sort(([, a], [, b]) => knownFieldCount(b) - knownFieldCount(a));

  const boards: BoardIdentity[] = [];
  // A board on another host always conflicts, and so does one with another known UUID (or,
  // for a ref without UUID, another known PCI bus id): only the boards that remain are tried,
  // so a host of thousands of GPUs is not every ref against every board.
  const boardsByHost = new Map<string, HostBoards>();
  const boardOf = new Map<string, number>();
  const ambiguous: AmbiguousRef[] = [];
  for (const [key, identity] of ordered) {
    let onHost = boardsByHost.get(identity.host);
    if (onHost === undefined) {
      onHost = new HostBoards();
      boardsByHost.set(identity.host, onHost);
    }
    const fitting: { board: BoardIdentity; number: number }[] = [];
    for (const number of onHost.candidates(identity)) {
      const board = boards[number]!;
      if (!conflicts(board, identity)) fitting.push({ board, number });
    }
    let chosen: number | undefined;
    if (fitting.length === 0) {
      boards.push({ ...identity });
      chosen = boards.length - 1;
      onHost.add(chosen, identity);
    } else if (fitting.length === 1) {
      chosen = fitting[0]!.number;
    } else {
      const scored = fitting.map((fit) => ({ ...fit, score: agreement(fit.board, identity) })).sort((a, b) => b.score - a.score);
      const [best, runnerUp] = scored;
      if (best!.score > 0 && best!.score > runnerUp!.score) chosen = best!.number;
      else ambiguous.push({ identity, candidates: scored.filter((fit) => fit.score === best!.score).length });
    }
    if (chosen === undefined) continue;
    const board = boards[chosen]!;
    onHost.learn(chosen, board, identity);
    board.uuid ??= identity.uuid;
    board.pciBusId ??= identity.pciBusId;
    board.index ??= identity.index;
    for (const field of ['uuid', 'pciBusId', 'index'] as const) if (board[field] === undefined) delete board[field];
    boardOf.set(key, chosen);
  }
  return { boards, boardOf, ambiguous };
}

/** One host's boards by what they are known by: the boards a ref could be, without trying all of them. */
class HostBoards {
  private readonly all: number[] = [];
  private readonly byUuid = new Map<string, number[]>();
  private readonly withoutUuid = new Set<number>();
  private readonly byPci = new Map<string, number[]>();
  private readonly withoutPci = new Set<number>();
  private readonly byIndex = new Map<number, number[]>();
  private readonly withoutIndex = new Set<number>();

  /**
   * Every board that could match `identity`: same or unknown UUID; without one, same or unknown
   * PCI bus id; without either (dmon rows), same or unknown index.
   */
  candidates(identity: BoardIdentity): Iterable<number> {
    if (identity.uuid !== undefined) return either(this.byUuid.get(identity.uuid), this.withoutUuid);
    if (identity.pciBusId !== undefined) return either(this.byPci.get(identity.pciBusId), this.withoutPci);
    if (identity.index !== undefined) return either(this.byIndex.get(identity.index), this.withoutIndex);
    return this.all;
  }

  add(number: number, identity: BoardIdentity): void {
    this.all.push(number);
    if (identity.uuid === undefined) this.withoutUuid.add(number);
    else push(this.byUuid, identity.uuid, number);
    if (identity.pciBusId === undefined) this.withoutPci.add(number);
    else push(this.byPci, identity.pciBusId, number);
    if (identity.index === undefined) this.withoutIndex.add(number);
    else push(this.byIndex, identity.index, number);
  }

  /** A board about to learn the UUID or bus id of a ref that matched it. */
  learn(number: number, board: BoardIdentity, identity: BoardIdentity): void {
    if (board.uuid === undefined && identity.uuid !== undefined) {
      this.withoutUuid.delete(number);
      push(this.byUuid, identity.uuid, number);
    }
    if (board.pciBusId === undefined && identity.pciBusId !== undefined) {
      this.withoutPci.delete(number);
      push(this.byPci, identity.pciBusId, number);
    }
    if (board.index === undefined && identity.index !== undefined) {
      this.withoutIndex.delete(number);
      push(this.byIndex, identity.index, number);
    }
  }
}

/** The boards known by the ref's value and those not known by that field at all, copied only when both are there. */
function either(known: readonly number[] | undefined, unknown: ReadonlySet<number>): Iterable<number> {
  if (unknown.size === 0) return known ?? [];
  if (known === undefined) return unknown;
  return [...known, ...unknown];
}

function push<Key>(map: Map<Key, number[]>, key: Key, number: number): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [number]);
  else list.push(number);
}

/** The part of a board that names it in the report. */
export interface NamedBoard {
  host: string;
  uuid: string | null;
  pciBusId: string | null;
  index: number | null;
}

/**
 * Report ids: the UUID, made unique with `@host` and then `#pciBusId` only where ids collide
 * (masked UUIDs). A board without UUID is named by its PCI bus id, else by `gpu<index>`.
 */
export function assignReportIds(boards: readonly NamedBoard[]): string[] {
  const ids = boards.map((board) => board.uuid ?? board.pciBusId ?? (board.index === null ? 'gpu' : `gpu${board.index}`));
  const suffixes: ((board: NamedBoard, position: number) => string | null)[] = [
    (board) => `@${board.host}`,
    (board) => (board.pciBusId === null || board.uuid === null ? null : `#${board.pciBusId}`),
    (board) => (board.index === null ? null : `#${board.index}`),
    (_board, position) => `#${position + 1}`,
  ];
  for (const suffix of suffixes) {
    const counts = new Map<string, number>();
    for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
    if ([...counts.values()].every((count) => count === 1)) break;
    boards.forEach((board, position) => {
      const extra = counts.get(ids[position]!)! > 1 ? suffix(board, position) : null;
      if (extra !== null) ids[position] += extra;
    });
  }
  return ids;
}

/** `uuid=…, pci=…, index=… on host` for messages. */
export function describeIdentity(identity: BoardIdentity, gpuInstanceId?: number): string {
  const fields = [
    identity.uuid === undefined ? null : `uuid ${identity.uuid}`,
    identity.pciBusId === undefined ? null : `PCI ${identity.pciBusId}`,
    identity.index === undefined ? null : `index ${identity.index}`,
    gpuInstanceId === undefined ? null : `GPU instance ${gpuInstanceId}`,
  ].filter((field) => field !== null);
  return `${fields.length === 0 ? 'a GPU' : fields.join(', ')} on host ${identity.host}`;
}
