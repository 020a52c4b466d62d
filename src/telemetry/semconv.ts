/**
 * The OpenTelemetry semantic conventions this package follows: the GenAI conventions (development status) as published
 * in `@opentelemetry/semantic-conventions` 1.45.0. Names are spelled here, not imported: the package depends on
 * `@opentelemetry/api` only.
 *
 * @example
 * console.log(`helix spans follow semconv ${SEMCONV_VERSION}`);
 */
export const SEMCONV_VERSION = '1.45.0';

export const OPERATION = 'gen_ai.operation.name';
export const PROVIDER = 'gen_ai.provider.name';
export const AGENT_NAME = 'gen_ai.agent.name';
export const AGENT_ID = 'gen_ai.agent.id';
export const CONVERSATION_ID = 'gen_ai.conversation.id';
export const REQUEST_MODEL = 'gen_ai.request.model';
export const RESPONSE_MODEL = 'gen_ai.response.model';
export const FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const TIME_TO_FIRST_CHUNK = 'gen_ai.response.time_to_first_chunk';
export const INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const CACHE_READ_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const REASONING_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
export const TOKEN_TYPE = 'gen_ai.token.type';
export const INPUT_MESSAGES = 'gen_ai.input.messages';
export const OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const TOOL_NAME = 'gen_ai.tool.name';
export const TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const TOOL_TYPE = 'gen_ai.tool.type';
export const TOOL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const TOOL_RESULT = 'gen_ai.tool.call.result';
export const ERROR_TYPE = 'error.type';

/** GenAI metrics. */
export const METRIC_OPERATION_DURATION = 'gen_ai.client.operation.duration';
export const METRIC_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_TIME_TO_FIRST_CHUNK = 'gen_ai.client.operation.time_to_first_chunk';

/** This package's own attributes (no GenAI convention covers them). */
export const RUN_ID = 'helix.run.id';
export const PREVIOUS_RUN_ID = 'helix.run.previous_id';
export const RUN_STATUS = 'helix.run.status';
export const COMPLETION_REASON = 'helix.run.completion_reason';
export const STEP_COUNT = 'helix.run.step_count';
export const SESSION_ID = 'helix.session.id';
export const STEP = 'helix.step';
export const ATTEMPT = 'helix.attempt';
export const RECOVERED = 'helix.recovered';
export const TOOL_OUTCOME = 'helix.tool.outcome';
export const TOOL_EXECUTOR = 'helix.tool.executor';
