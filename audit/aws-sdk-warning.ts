/**
 * The AWS SDK for JavaScript v3 warns once per process, on Node < 22, that its releases from 2027 will need Node 22
 * (`NodeVersionSupportWarning`, nine lines on standard error: @aws-sdk/core emitWarningIfUnsupportedVersion). tollgate
 * supports Node 20 and pins its SDK version, so on every S3 run of the CLI and the Lambda edges under Node 20
 * (serverless offline) the warning is noise. The edges turn off exactly that warning, with the SDK's own switch,
 * before any client is made; other warnings are untouched, and a value the user set is kept.
 */
const SWITCH = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED";

/** Turns off the SDK's Node version warning in `env` (default: this process's) unless it is set already. */
export function silenceSdkNodeVersionWarning(env: NodeJS.ProcessEnv = process.env): void {
  if (env[SWITCH] === undefined) env[SWITCH] = "true";
}
