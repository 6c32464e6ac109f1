/**
 * The controller chains of a run's objects (`ownerReferences` with `controller: true`), followed up to the top found
 * in the input: findings and groups name a Pod's Deployment, not its ReplicaSet.
 */
import type { ObjectRecord } from "./model.js";

/**
 * The run's `ownerReferences` links, object → its own controller, so that each controller can be followed up to the
 * top of the chain found in the input (a Pod → its ReplicaSet → that ReplicaSet's Deployment). A link is kept within
 * a namespace, as owner references are. Records learnt from shard runs carry the top their shard found, which is
 * itself linked further here, so a merged run resolves as one run would.
 */
export class ControllerChain {
  private readonly up = new Map<string, string>();

  /** A chain from {@link links} (another thread's copy of the run's). */
  static fromLinks(links: readonly (readonly [string, string])[]): ControllerChain {
    const chain = new ControllerChain();
    for (const [object, controller] of links) chain.up.set(object, controller);
    return chain;
  }

  /**
   * The links resolving a controller can follow: those of objects that are themselves some object's controller
   * (a ReplicaSet's link to its Deployment, not each Pod's to its ReplicaSet), far fewer than all.
   */
  links(): [string, string][] {
    const controllers = new Set<string>();
    for (const [object, controller] of this.up)
      controllers.add(`${object.slice(0, object.indexOf("\0"))}\0${controller}`);
    return [...this.up].filter(([object]) => controllers.has(object));
  }

  learn(r: ObjectRecord): void {
    if (r.object === undefined || r.controller === undefined) return;
    this.up.set(`${r.object.namespace ?? ""}\0${r.object.kind}/${r.object.name}`, r.controller);
  }

  /** The top of the chain above `controller` in the namespace (itself when it has no controller in the input). */
  top(namespace: string | undefined, controller: string): string {
    let current = controller;
    // Owner references can form a cycle in a hand-made input: a few links up is all a real chain has.
    for (let i = 0; i < 16; i++) {
      const next = this.up.get(`${namespace ?? ""}\0${current}`);
      if (next === undefined || next === current) break;
      current = next;
    }
    return current;
  }

  /** A controller group's key (`<namespace>/<Kind>/<name>`, or `<Kind>/<name>`) at the top of its chain. */
  topOfGroup(group: string): string {
    const parts = group.split("/");
    if (parts.length < 3) return this.top(undefined, group);
    const namespace = parts[0]!;
    return `${namespace}/${this.top(namespace, parts.slice(1).join("/"))}`;
  }

  /** The value with its controller resolved (a copy when it changes). */
  resolved<T extends { controller?: string; object?: { namespace?: string } }>(v: T): T {
    if (v.controller === undefined) return v;
    const top = this.top(v.object?.namespace, v.controller);
    return top === v.controller ? v : { ...v, controller: top };
  }
}
