export { AgentTelemetry, type TelemetryOptions, type SpanScope, type Instruments } from './agent-telemetry.js';
export { HelixIdGenerator } from './id-generator.js';
export { sessionTraceId, runSpanId, toolSpanId, parseTraceparent, formatTraceparent } from './ids.js';
export { SEMCONV_VERSION } from './semconv.js';
