import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";

/**
 * The `--policy-pack-config` file the Pulumi CLI was given for this pack. The CLI passes a pack its policy
 * settings but not the file's exceptions, which it applies itself; the pack reads the file to judge the
 * exceptions' expiry (policies/exceptions.ts). Named by EXAMPLEDEV_POLICY_PACK_CONFIG, or else found on the
 * command line of the `pulumi` process that started this pack (through /proc, on Linux): the `--policy-pack`
 * that is this pack, paired with the `--policy-pack-config` in the same position, as the CLI pairs them.
 */

export const PACK_CONFIG_ENV = "EXAMPLEDEV_POLICY_PACK_CONFIG";

export interface LocatedConfig {
  path: string;
  text: string;
}

/** This pack's folder (the one with PulumiPolicy.yaml): `policies/` beside the sources, or above `dist/`. */
function packDir(): string | undefined {
  const found = [__dirname, path.join(__dirname, "../../policies")].find((dir) =>
    existsSync(path.join(dir, "PulumiPolicy.yaml")),
  );
  return found && realpathSync(found);
}

function procArgs(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").slice(0, -1);
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    // The fields after the command's name (which may hold spaces and parentheses): state, then ppid.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

/** The values of a flag, in order: `--flag value`, `--flag=value`, and comma lists (preview and up take them). */
function flagValues(args: readonly string[], flag: string): string[] {
  const values: string[] = [];
  args.forEach((arg, index) => {
    if (arg === flag && args[index + 1] !== undefined) values.push(args[index + 1] as string);
    else if (arg.startsWith(`${flag}=`)) values.push(arg.slice(flag.length + 1));
  });
  return values.flatMap((value) => value.split(","));
}

/** The config file the CLI process `pid` pairs with this pack, resolved against that process's directory. */
function configOnCommandLine(pid: number, args: readonly string[], pack: string): string | undefined {
  const configs = flagValues(args, "--policy-pack-config");
  if (configs.length === 0) return undefined;
  let cwd: string;
  try {
    cwd = realpathSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
  const packs = flagValues(args, "--policy-pack").map((given) => {
    try {
      return realpathSync(path.resolve(cwd, given));
    } catch {
      return undefined;
    }
  });
  const index = packs.indexOf(pack);
  const config = configs[index < 0 && configs.length === 1 ? 0 : index];
  return config === undefined ? undefined : path.resolve(cwd, config);
}

function fromAncestors(): string | undefined {
  const pack = packDir();
  if (pack === undefined) return undefined;
  let pid: number | undefined = process.ppid;
  for (let depth = 0; pid !== undefined && depth < 8; depth += 1) {
    const args = procArgs(pid);
    if (args?.some((arg) => arg.startsWith("--policy-pack"))) return configOnCommandLine(pid, args, pack);
    pid = parentOf(pid);
  }
  return undefined;
}

/** The config file of this run, or undefined when none was given (or it cannot be found). */
export function locatePackConfig(env: NodeJS.ProcessEnv = process.env): LocatedConfig | undefined {
  const file = env[PACK_CONFIG_ENV] || fromAncestors();
  if (file === undefined) return undefined;
  return { path: file, text: readFileSync(file, "utf8") };
}
