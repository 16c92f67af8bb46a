/**
 * The JSON report: the contract itself (schema/report.schema.json), for machines and
 * for `gpu-audit report` / `check --baseline` to read back. Keys come out in contract
 * order whatever order the producer built them in, so two reports diff line by line.
 */
import type { Report } from '../model/report.js';
import { REPORT_ORDER, inContractOrder } from './contract-order.js';
import type { Renderer } from './types.js';

export const renderJson: Renderer = (report: Report): string => `${JSON.stringify(inContractOrder(report, REPORT_ORDER), null, 2)}\n`;
