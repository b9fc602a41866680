import { BaseEnv, BudgetEnv, GrpcEnv, InfraEnv, loadConfig } from "@gw/config";
import { z } from "zod";

export const BudgetConfig = BaseEnv.extend(InfraEnv.shape)
  .extend(GrpcEnv.shape)
  .extend(BudgetEnv.shape)
  .extend({
    /** Where the budget gRPC server binds ("host:port" or "unix:/path"). */
    BUDGET_GRPC_LISTEN: z.string().default("0.0.0.0:50052"),
  });
export type BudgetConfig = z.infer<typeof BudgetConfig>;

export function readBudgetConfig(): BudgetConfig {
  return loadConfig(BudgetConfig, process.env);
}
