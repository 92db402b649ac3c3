// Settings mistakes that a preview would otherwise pass over in silence, told once per program run by the
// program itself (the dynamic provider's host shows no warnings): a stack config key in the provider's
// namespace that names no setting, and, in a preview, no API address at all — such a preview asks nothing of
// the API, and `pulumi up` would then fail on every resource.
import * as pulumi from "@pulumi/pulumi";
import { addressGiven, SET_ADDRESS_HINT, SETTINGS, unknownSettingMessage } from "../client/settings";

const NAMESPACE = `${SETTINGS.baseUrl.config.split(":")[0]}:`;
const KNOWN_KEYS: ReadonlySet<string> = new Set(Object.values(SETTINGS).map((setting) => setting.config));

let told = false;

/** The warnings the stack's settings call for, once per process (the first resource constructed asks). */
export function noticeSettingsOnce(): void {
  if (told) return;
  told = true;
  for (const message of settingsNotices(pulumi.runtime.allConfig(), process.env, pulumi.runtime.isDryRun()))
    void pulumi.log.warn(message);
}

/** The warnings for a stack's config and environment; `preview` adds the missing address's. */
export function settingsNotices(
  config: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv,
  preview: boolean,
): string[] {
  const unknown = Object.keys(config)
    .filter((key) => key.startsWith(NAMESPACE) && !KNOWN_KEYS.has(key))
    .sort()
    .map(unknownSettingMessage);
  const address = addressGiven((key) => config[key], env)
    ? []
    : [
        `no API address configured: this preview asks nothing of the API, and \`pulumi up\` will fail until one is: ${SET_ADDRESS_HINT}`,
      ];
  return [...unknown, ...(preview ? address : [])];
}
