/**
 * Regenerates lib/policy/builtin-resources.data.ts: the built-in resources of Kubernetes (group, version, plural
 * resource, kind, scope, and each subresource with the kind it is served as) from upstream's published API
 * description, the OpenAPI v2 document kube-apiserver serves with every API group enabled
 * (kubernetes/kubernetes api/openapi-spec/swagger.json of the release branch).
 *
 *   curl -fsSLo /tmp/swagger.json https://raw.githubusercontent.com/kubernetes/kubernetes/release-1.36/api/openapi-spec/swagger.json
 *   npx tsx infra/generate-builtin-resources.ts /tmp/swagger.json 1.36
 *
 * The fetched document is not kept in the repository; only the generated file is.
 *
 * What is read: every non-watch path `/api/v1/...` or `/apis/<group>/<version>/...` whose operations carry
 * `x-kubernetes-group-version-kind`. `.../namespaces/{namespace}/<plural>` makes a resource namespaced (except
 * `namespaces` itself); `<plural>/{name}/<sub>` is a subresource, served as the kind of its operations (`scale` as
 * autoscaling/v1 Scale, `exec` as PodExecOptions, `eviction` as policy/v1 Eviction), which is what the API server's
 * REST mapping registers (k8s.io/apiserver endpoints/installer.go RegisterKindFor).
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

interface Resource {
  groupVersion: string;
  resource: string;
  kind?: Gvk;
  namespaced: boolean;
  subresources: Map<string, Gvk>;
}

const OUTPUT = fileURLToPath(new URL("../lib/policy/builtin-resources.data.ts", import.meta.url));

/** "/api/v1/..." or "/apis/<g>/<v>/..." → [groupVersion, rest segments]; watch paths are skipped. */
function splitPath(path: string): [string, string[]] | undefined {
  const parts = path.split("/").filter((p) => p !== "");
  let gv: string;
  let rest: string[];
  if (parts[0] === "api" && parts[1] === "v1") {
    gv = "v1";
    rest = parts.slice(2);
  } else if (parts[0] === "apis" && parts.length >= 3) {
    gv = `${parts[1]}/${parts[2]}`;
    rest = parts.slice(3);
  } else {
    return undefined;
  }
  if (rest[0] === "watch") return undefined;
  return [gv, rest];
}

function operationKind(item: Record<string, unknown>): Gvk | undefined {
  for (const [method, op] of Object.entries(item)) {
    if (method === "parameters" || typeof op !== "object" || op === null) continue;
    const gvk = (op as Record<string, unknown>)["x-kubernetes-group-version-kind"];
    if (typeof gvk === "object" && gvk !== null) return gvk as Gvk;
  }
  return undefined;
}

function collect(paths: Record<string, Record<string, unknown>>): Map<string, Resource> {
  const resources = new Map<string, Resource>();
  const get = (gv: string, plural: string): Resource => {
    const key = `${gv}\0${plural}`;
    let r = resources.get(key);
    if (r === undefined) {
      r = { groupVersion: gv, resource: plural, namespaced: false, subresources: new Map() };
      resources.set(key, r);
    }
    return r;
  };
  for (const [path, item] of Object.entries(paths)) {
    const split = splitPath(path);
    if (split === undefined) continue;
    const [gv, rest] = split;
    const kind = operationKind(item);
    if (kind === undefined) continue;
    let segs = rest;
    let namespaced = false;
    if (segs[0] === "namespaces" && segs[1] === "{namespace}" && segs.length >= 3) {
      namespaced = true;
      segs = segs.slice(2);
    }
    const plural = segs[0];
    if (plural === undefined || plural.startsWith("{")) continue;
    const r = get(gv, plural);
    if (namespaced) r.namespaced = true;
    if (segs.length <= 2) {
      // The collection or one object: the resource's own kind.
      if (r.kind === undefined) r.kind = kind;
    } else if (segs[1] === "{name}" && segs[2] !== undefined && !segs[2].startsWith("{")) {
      if (!r.subresources.has(segs[2])) r.subresources.set(segs[2], kind);
    }
  }
  return resources;
}

function render(resources: Map<string, Resource>, version: string, source: string): string {
  const rows: string[] = [];
  const sorted = [...resources.values()]
    .filter((r) => r.kind !== undefined)
    .sort((a, b) =>
      a.groupVersion === b.groupVersion
        ? a.resource.localeCompare(b.resource)
        : a.groupVersion.localeCompare(b.groupVersion),
    );
  for (const r of sorted) {
    const kind = r.kind!;
    const subs = [...r.subresources.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, k]) => {
        const sameKind = k.kind === kind.kind && k.group === kind.group;
        return sameKind ? name : `${name}=${k.group === "" ? "" : `${k.group}/`}${k.version}/${k.kind}`;
      });
    rows.push(
      `  [${JSON.stringify(r.groupVersion)}, ${JSON.stringify(r.resource)}, ${JSON.stringify(kind.kind)}, ${r.namespaced ? 1 : 0}, ${JSON.stringify(subs.join(" "))}],`,
    );
  }
  return `/**
 * The built-in resources of Kubernetes ${version}: [groupVersion, resource, kind, namespaced (1) or cluster-scoped
 * (0), subresources]. A subresource is "name" when it is served as the resource's own kind, else
 * "name=<group>/<version>/<Kind>" (core group: "name=v1/<Kind>").
 *
 * GENERATED by infra/generate-builtin-resources.ts from ${source};
 * do not edit.
 */
export const KUBERNETES_RESOURCES_VERSION = ${JSON.stringify(version)};

export const BUILTIN_RESOURCE_ROWS: readonly (readonly [string, string, string, 0 | 1, string])[] = [
${rows.join("\n")}
];
`;
}

function main(): void {
  const [input, version] = process.argv.slice(2);
  if (input === undefined || version === undefined) {
    process.stderr.write(
      "usage: tsx infra/generate-builtin-resources.ts <swagger.json> <kubernetes minor, e.g. 1.36>\n",
    );
    process.exitCode = 2;
    return;
  }
  const doc = JSON.parse(readFileSync(input, "utf8")) as { paths?: Record<string, Record<string, unknown>> };
  if (doc.paths === undefined) throw new Error(`${input}: no "paths": not an OpenAPI v2 document`);
  const resources = collect(doc.paths);
  const source = `kubernetes/kubernetes release-${version} api/openapi-spec/swagger.json`;
  writeFileSync(OUTPUT, render(resources, version, source));
  // The repository's formatting, so that a regenerated file differs only where the API does.
  const biome = fileURLToPath(new URL("../node_modules/.bin/biome", import.meta.url));
  const formatted = spawnSync(biome, ["format", "--write", OUTPUT], { stdio: "inherit" });
  if (formatted.status !== 0) throw new Error(`biome format failed on ${OUTPUT}`);
  process.stdout.write(`${OUTPUT}: ${resources.size} resources\n`);
}

main();
