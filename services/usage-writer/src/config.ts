import { BaseEnv, InfraEnv, loadConfig } from "@gw/config";
import { z } from "zod";

export const UsageWriterConfig = BaseEnv.extend(InfraEnv.shape).extend({
  /** Records stored at once. */
  USAGE_WRITER_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(64),
});
export type UsageWriterConfig = z.infer<typeof UsageWriterConfig>;

export function readUsageWriterConfig(): UsageWriterConfig {
  return loadConfig(UsageWriterConfig, process.env);
}
