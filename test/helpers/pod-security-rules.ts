/**
 * The webhook rules `tollgate webhook-config` writes for the Pod Security family: namespaces, pods (and their
 * ephemeral containers, added by updates) and the workload kinds, as the upstream Pod Security webhook registers them.
 */
export const POD_SECURITY_WEBHOOK_RULES = [
  {
    apiGroups: [""],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE"],
    resources: ["namespaces"],
    scope: "Cluster",
  },
  {
    apiGroups: [""],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE"],
    resources: ["pods", "podtemplates", "replicationcontrollers"],
    scope: "Namespaced",
  },
  {
    apiGroups: [""],
    apiVersions: ["v1"],
    operations: ["UPDATE"],
    resources: ["pods/ephemeralcontainers"],
    scope: "Namespaced",
  },
  {
    apiGroups: ["apps"],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE"],
    resources: ["daemonsets", "deployments", "replicasets", "statefulsets"],
    scope: "Namespaced",
  },
  {
    apiGroups: ["batch"],
    apiVersions: ["v1"],
    operations: ["CREATE", "UPDATE"],
    resources: ["cronjobs", "jobs"],
    scope: "Namespaced",
  },
] as const;
