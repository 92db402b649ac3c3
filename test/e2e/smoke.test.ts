import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pinnedPulumiVersion } from "../../scripts/lib/pulumi";
import { createTestStack, type TestStack } from "../helpers/pulumi";

describe("the pinned Pulumi toolchain", () => {
  let t: TestStack;
  beforeAll(async () => {
    t = await createTestStack(path.join(__dirname, "fixtures/smoke"));
  });
  afterAll(async () => t?.dispose());

  it("runs up, a no-change preview, refresh and destroy through the real CLI", async () => {
    const up = await t.stack.up();
    expect(up.summary.result).toBe("succeeded");
    expect(up.summary.resourceChanges).toMatchObject({ create: 2 });
    expect(up.outputs.id?.value).toBe("greeting-world");
    // The program ran on the pinned Node, not on the machine's.
    expect(up.outputs.nodeVersion?.value).toMatch(/^v24\./);

    const preview = await t.stack.preview();
    expect(preview.changeSummary).toEqual({ same: 2 });

    const refresh = await t.stack.refresh();
    expect(refresh.summary.result).toBe("succeeded");

    const destroy = await t.stack.destroy();
    expect(destroy.summary.resourceChanges).toMatchObject({ delete: 2 });
    expect((await t.stack.exportStack()).deployment.resources ?? []).toHaveLength(0);
  });

  it("reports the pinned CLI version", async () => {
    const version = t.stack.workspace.pulumiVersion;
    // The version the lockfile pins for @pulumi/pulumi (package.json declares a range), and the SDK installed.
    expect(version).toBe(pinnedPulumiVersion());
    expect(version).toBe(require("@pulumi/pulumi/package.json").version);
  });
});
