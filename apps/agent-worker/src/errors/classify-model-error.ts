import {
  APICallError,
  InvalidMessageRoleError,
  InvalidPromptError,
  InvalidToolApprovalError,
  InvalidToolApprovalSignatureError,
  RetryError,
  ToolCallNotFoundForApprovalError,
} from 'ai';
import { NonRetryableError } from '@agentq/shared';

/**
 * Gives the model loop's own failures their retry meaning as agentq errors, before the shared
 * BullMQ adapter (`toBullmqError` from `@agentq/shared`) sees them:
 * - a prompt or an approval the model loop refuses (bad messages, a forged or unsigned approval)
 *   ⇒ `NonRetryableError` `VALIDATION`: the same messages would be refused again;
 * - a model provider error that will not go away (4xx other than 408/409/429)
 *   ⇒ `NonRetryableError` `MODEL_REJECTED`;
 * - anything else is returned as it is (a provider outage retries with the job's backoff).
 */
export function classifyModelError(error: unknown): unknown {
  if (isRefusedPrompt(error)) {
    return new NonRetryableError({
      code: 'VALIDATION',
      message: `The model loop refused the run's messages: ${(error as Error).message}`,
      cause: error,
    });
  }
  const providerError = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(providerError) && !providerError.isRetryable) {
    const status = providerError.statusCode ?? 0;
    if (status >= 400 && status < 500) {
      return new NonRetryableError({
        code: 'MODEL_REJECTED',
        message: `Model provider rejected the request (${status}): ${providerError.message}`,
        cause: error,
      });
    }
  }
  return error;
}

function isRefusedPrompt(error: unknown): boolean {
  return (
    InvalidPromptError.isInstance(error) ||
    InvalidMessageRoleError.isInstance(error) ||
    InvalidToolApprovalError.isInstance(error) ||
    ToolCallNotFoundForApprovalError.isInstance(error) ||
    InvalidToolApprovalSignatureError.isInstance(error)
  );
}
