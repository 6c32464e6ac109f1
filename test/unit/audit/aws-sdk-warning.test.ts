import { describe, expect, it } from "vitest";
import { silenceSdkNodeVersionWarning } from "../../../audit/aws-sdk-warning.js";

describe("silenceSdkNodeVersionWarning", () => {
  it.each([
    { name: "turns the SDK's Node version warning off", env: {}, want: "true" },
    {
      name: "keeps a value the user set",
      env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "false" },
      want: "false",
    },
  ])("$name", ({ env, want }) => {
    const copy: NodeJS.ProcessEnv = { ...env, OTHER: "x" };
    silenceSdkNodeVersionWarning(copy);
    expect(copy).toEqual({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: want, OTHER: "x" });
  });

  it("is what the Lambda edges do when imported", async () => {
    const saved = process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    try {
      await import("../../../functions/audit.js");
      expect(process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe("true");
    } finally {
      if (saved === undefined) delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
      else process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = saved;
    }
  });
});
