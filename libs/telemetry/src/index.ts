/**
 * OpenTelemetry for every service. `startTelemetry` runs before the service's other modules are
 * imported (each main imports its app dynamically afterwards) so instrumentations can patch them.
 *
 * Always: an AsyncLocalStorage context manager and the W3C trace-context propagator, so trace
 * context crosses gRPC (libs/rpc, metadata) and NATS (message headers) even when nothing is
 * exported. Export: OTLP/HTTP traces only when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 */
import { context, propagation, type Span, SpanStatusCode, trace } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";

export interface TelemetryOptions {
  serviceName: string;
  version: string;
  /** OTLP/HTTP base endpoint (e.g. http://collector:4318); unset = no export. */
  otlpEndpoint?: string | undefined;
}

export interface Telemetry {
  exporting: boolean;
  shutdown(): Promise<void>;
}

export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry> {
  if (!options.otlpEndpoint) {
    const { AsyncLocalStorageContextManager } = await import("@opentelemetry/context-async-hooks");
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    return { exporting: false, shutdown: async () => {} };
  }
  // Loaded only when exporting: the SDK and exporters cost startup time and memory.
  const [{ NodeSDK }, { OTLPTraceExporter }, { HttpInstrumentation }, resources] = await Promise.all([
    import("@opentelemetry/sdk-node"),
    import("@opentelemetry/exporter-trace-otlp-http"),
    import("@opentelemetry/instrumentation-http"),
    import("@opentelemetry/resources"),
  ]);
  const endpoint = options.otlpEndpoint.replace(/\/$/, "");
  const sdk = new NodeSDK({
    resource: resources.resourceFromAttributes({
      "service.name": options.serviceName,
      "service.version": options.version,
    }),
    traceExporter: new OTLPTraceExporter({ url: `${endpoint}/v1/traces` }),
    textMapPropagator: new W3CTraceContextPropagator(),
    // No gRPC auto-instrumentation: libs/rpc opens the server spans itself (it would double them).
    instrumentations: [new HttpInstrumentation()],
  });
  sdk.start();
  return { exporting: true, shutdown: () => sdk.shutdown() };
}

/** Carrier helpers for headers-as-record transports (bus messages, gRPC metadata). */
export function injectTraceContext(carrier: Record<string, string>): Record<string, string> {
  propagation.inject(context.active(), carrier);
  return carrier;
}

export function withExtractedContext<T>(carrier: Record<string, string>, fn: () => T): T {
  return context.with(propagation.extract(context.active(), carrier), fn);
}

/** Run `fn` in a span; errors mark the span and are rethrown. */
export async function inSpan<T>(name: string, fn: (span: Span) => Promise<T>): Promise<T> {
  return trace.getTracer("@gw/telemetry").startActiveSpan(name, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  });
}
