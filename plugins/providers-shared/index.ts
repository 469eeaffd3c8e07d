/**
 * Shared helpers for provider plugins: the message builder, the visible retry
 * policy, failure classification and the stream skeleton. A library, not a
 * plugin: it contributes nothing. Other plugins import only this file.
 */
export { IncompleteStreamError, MessageBuilder, ProviderProtocolError } from './message-builder.js';
export { DEFAULT_RETRY_POLICY, backoffDelay, retryAfterMs, sleep, type RetryPolicy } from './retry.js';
export { MissingCredentialError, classifyFailure, credentialCheck, redact, boundMessage, type FailureContext, type FailureKind, type ProviderFailure } from './failures.js';
export { runProviderStream, trackedRequest, type ProviderAttempt, type ProviderStreamOptions } from './provider-stream.js';
export { boundedFetch } from './bounded-fetch.js';
export { credentialStoreOf, imageDataUrl, providerConnector, providerSettings, type ProviderConnection, type ProviderConnector, type ProviderSettings } from './settings.js';
export { requestJson, type JsonRequest } from './json-request.js';
