/**
 * init/: what `gpu-audit init` proposes from an audit, the questions it asks, and the
 * gpu-audit.yaml it writes. The CLI (src/cli/commands/init.ts) loads this module only
 * when init runs: it pulls in the YAML writer.
 */
export { escapeRegExp, normaliseCommand, proposeThresholds, proposeWorkloads, suggestKind } from '../../config/index.js';
export type { ProposedMatch, ProposedThresholds, WorkloadProposal } from '../../config/index.js';
export { acceptProposals, buildConfig, describeProposal, runWizard } from './wizard.js';
export type { PricingAnswer, WizardDefaults } from './wizard.js';
export { inquirerPrompter, isPromptCancelled } from './prompter.js';
export type { ConfirmQuestion, InputQuestion, NumberQuestion, Prompter, SelectQuestion } from './prompter.js';
export { SCHEMA_REFERENCE, configText } from '../../config/document/index.js';
