/**
 * Small helpers shared by the refresh steps: a page-count guard for paginators and a
 * concurrency limit for per-region and per-SKU work.
 */

/** More pages than any real listing of GPU types or prices has; a server repeating a token would loop forever. */
export const MAX_PAGES = 500;

/** Iterates an async paginator, failing clearly instead of looping when it never ends. */
export async function* guardPages<T>(pages: AsyncIterable<T>, what: string, maxPages = MAX_PAGES): AsyncGenerator<T> {
  let count = 0;
  for await (const page of pages) {
    count += 1;
    if (count > maxPages) throw new Error(`${what}: more than ${maxPages} pages; the listing does not end`);
    yield page;
  }
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the input order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const workers = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index]!, index);
    }
  });
  await Promise.all(workers);
  return results;
}
