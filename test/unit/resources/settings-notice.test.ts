import { describe, expect, it } from "vitest";
import { unknownSettingMessage } from "../../../sdk/client/settings";
import { settingsNotices } from "../../../sdk/resources/settings-notice";

const ADDRESS = { "exampledev:baseUrl": "http://127.0.0.1:8080" };

describe("the settings a program warns about", () => {
  it("names a misspelt key and the setting it is closest to", () => {
    expect(unknownSettingMessage("exampledev:baseURL")).toBe(
      "exampledev:baseURL is not a setting of @exampledev/pulumi and is ignored: did you mean exampledev:baseUrl?",
    );
    expect(unknownSettingMessage("exampledev:servrDryRun")).toMatch(
      /did you mean exampledev:serverDryRun\?$/,
    );
  });

  it("lists every setting when no key is close", () => {
    const message = unknownSettingMessage("exampledev:region");
    expect(message).toMatch(/^exampledev:region is not a setting .* the settings are exampledev:baseUrl, /);
    expect(message).toContain("exampledev:kubeconfig");
  });

  it("warns about keys of its namespace only, each once, sorted", () => {
    const config = {
      ...ADDRESS,
      "exampledev:tokn": "x",
      "exampledev:apiUrl": "y",
      "quickstart:bundleRepo": "z",
    };
    const notices = settingsNotices(config, {}, true);
    expect(notices.map((notice) => notice.split(" ")[0])).toEqual(["exampledev:apiUrl", "exampledev:tokn"]);
    expect(notices.join("\n")).not.toContain("quickstart:");
  });

  it("in a preview without an address, says `up` will fail and how to set one", () => {
    const [notice] = settingsNotices({}, {}, true);
    expect(notice).toMatch(
      /^no API address configured: this preview asks nothing of the API, and `pulumi up` will fail/,
    );
    expect(notice).toContain("pulumi config set exampledev:baseUrl");
    expect(notice).toContain("EXAMPLEDEV_BASE_URL");
  });

  it("is quiet with an address from config, a variable or a kubeconfig, and outside a preview", () => {
    expect(settingsNotices(ADDRESS, {}, true)).toEqual([]);
    expect(settingsNotices({}, { EXAMPLEDEV_BASE_URL: "http://127.0.0.1:1" }, true)).toEqual([]);
    expect(settingsNotices({ "exampledev:kubeconfig": "/k" }, {}, true)).toEqual([]);
    expect(settingsNotices({}, {}, false)).toEqual([]);
  });

  it("never repeats a setting's value", () => {
    const notices = settingsNotices({ "exampledev:tokn": "s3cret-token" }, {}, true);
    expect(notices.join("\n")).not.toContain("s3cret-token");
  });
});
