/**
 * The sharded mode's invoker (audit/shards.ts runs the mode): the coordinator Lambda invokes the same function once
 * per shard through the Lambda API (`@aws-sdk/client-lambda`, `InvokeCommand`, RequestResponse), with the function
 * name from `AWS_LAMBDA_FUNCTION_NAME` and the endpoint from `TOLLGATE_LAMBDA_ENDPOINT` when set (serverless
 * offline's `http://127.0.0.1:3002`).
 */
import { ConfigError } from "#lib";
import type { Env } from "../audit/config.js";
import type { ShardInput, ShardInvoker } from "../audit/shards.js";

/**
 * The Lambda API invoker: the function named by `AWS_LAMBDA_FUNCTION_NAME` (this function), at
 * `TOLLGATE_LAMBDA_ENDPOINT` when set. A function error becomes an Error with the function's message.
 */
export function lambdaInvoker(env: Env): ShardInvoker {
  const functionName = env.AWS_LAMBDA_FUNCTION_NAME;
  if (functionName === undefined || functionName === "") {
    throw new ConfigError("sharded audit: AWS_LAMBDA_FUNCTION_NAME is not set (the function to invoke per shard)");
  }
  const endpoint = env.TOLLGATE_LAMBDA_ENDPOINT;
  let client: Promise<{ send: (input: ShardInput) => Promise<unknown> }> | undefined;
  const open = async () => {
    const { LambdaClient, InvokeCommand } = await import("@aws-sdk/client-lambda");
    const lambda = new LambdaClient(endpoint !== undefined && endpoint !== "" ? { endpoint } : {});
    return {
      async send(input: ShardInput): Promise<unknown> {
        const response = await lambda.send(
          new InvokeCommand({
            FunctionName: functionName,
            InvocationType: "RequestResponse",
            Payload: new TextEncoder().encode(JSON.stringify(input)),
          }),
        );
        const text = response.Payload === undefined ? "" : new TextDecoder().decode(response.Payload);
        let payload: unknown;
        try {
          payload = text === "" ? undefined : JSON.parse(text);
        } catch {
          payload = text;
        }
        if (response.FunctionError !== undefined) {
          const message = (payload as { errorMessage?: unknown } | undefined)?.errorMessage;
          throw new Error(`function error: ${typeof message === "string" ? message : response.FunctionError}`);
        }
        return payload;
      },
    };
  };
  return async (input) => {
    client ??= open();
    return (await client).send(input);
  };
}
