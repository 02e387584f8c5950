/**
 * Log output: the text and JSON encoders that logback.xml chooses between
 * ({@code WEIR_LOG_FORMAT}), and {@link io.weir.logging.Secrets}, which keeps secret client
 * properties out of logs, messages and printed configuration.
 */
package io.weir.logging;
