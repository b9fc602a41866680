export { startUsageWriter, USAGE_WRITER_DURABLE } from "./consumer.js";
export { storeUsageRows } from "./store-rows.js";
