import { expect, test } from "vitest";
import { parseDuration } from "../../../sdk/schema";

test.each([
  ["30s", 30_000],
  ["1m30s", 90_000],
  ["250ms", 250],
  ["1h", 3_600_000],
  ["1.5h", 5_400_000],
  ["0", 0],
  ["0s", 0],
  [".5s", 500],
  ["1.s", 1_000],
  ["2h45m0.5s", 9_900_500],
  ["1500us", 1.5],
  ["1500µs", 1.5],
  ["1000000ns", 1],
  ["+5s", 5_000],
  ["-5s", -5_000],
])("parses %s as %d ms", (text, ms) => {
  expect(parseDuration(text)).toBeCloseTo(ms, 9);
});

test.each([
  "",
  "30",
  "s",
  ".s",
  "1 s",
  " 1s",
  "1d",
  "1S",
  "5sec",
  "1h-5m",
  "--1s",
  "1e3s",
  "NaN",
  "9999999999999h",
])("rejects %j", (text) => {
  expect(parseDuration(text)).toBeUndefined();
});

test("rejects values that are not strings", () => {
  expect(parseDuration(30 as unknown as string)).toBeUndefined();
});
