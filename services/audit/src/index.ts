export { AUDIT_DURABLE, startAuditWriter } from "./consumer.js";
