export { startUsageWriter, USAGE_WRITER_DURABLE } from "./consumer.js";
