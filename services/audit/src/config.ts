import { BaseEnv, InfraEnv, loadConfig } from "@gw/config";
import type { z } from "zod";

export const AuditConfig = BaseEnv.extend(InfraEnv.shape);
export type AuditConfig = z.infer<typeof AuditConfig>;

export function readAuditConfig(): AuditConfig {
  return loadConfig(AuditConfig, process.env);
}
