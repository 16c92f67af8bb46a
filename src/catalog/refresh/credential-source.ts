/**
 * Names where credentials came from, for error messages ("AWS credentials from environment
 * variables (default chain) were rejected"). Only variable names are read into the message,
 * never their values; the profile name is not a secret and tells the user which one to fix.
 */

interface SourceRule {
  /** Environment variable whose presence decides the source. */
  variable: string;
  describe: (value: string) => string;
}

/** The AWS default chain's order (env, web identity, profile); the first present wins. */
const AWS_SOURCES: readonly SourceRule[] = [
  { variable: 'AWS_ACCESS_KEY_ID', describe: () => 'environment variables (AWS_ACCESS_KEY_ID, default chain)' },
  { variable: 'AWS_WEB_IDENTITY_TOKEN_FILE', describe: () => 'the web identity token file (AWS_WEB_IDENTITY_TOKEN_FILE, default chain)' },
  { variable: 'AWS_PROFILE', describe: (profile) => `profile "${profile}" (AWS_PROFILE, default chain)` },
];

/** DefaultAzureCredential tries the environment first; name it when it is configured. */
const AZURE_SOURCES: readonly SourceRule[] = [
  { variable: 'AZURE_CLIENT_SECRET', describe: () => 'DefaultAzureCredential (environment: client secret)' },
  { variable: 'AZURE_CLIENT_CERTIFICATE_PATH', describe: () => 'DefaultAzureCredential (environment: client certificate)' },
  { variable: 'AZURE_FEDERATED_TOKEN_FILE', describe: () => 'DefaultAzureCredential (workload identity)' },
];

function describe(rules: readonly SourceRule[], env: NodeJS.ProcessEnv, fallback: string): string {
  for (const rule of rules) {
    const value = env[rule.variable];
    if (value !== undefined && value !== '') return rule.describe(value);
  }
  return fallback;
}

export function awsCredentialSource(env: NodeJS.ProcessEnv): string {
  return describe(AWS_SOURCES, env, 'the default chain');
}

export function azureCredentialSource(env: NodeJS.ProcessEnv): string {
  return describe(AZURE_SOURCES, env, 'DefaultAzureCredential (Azure CLI, managed identity or another source of its chain)');
}
