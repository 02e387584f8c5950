/**
 * Log output: logback set up in code ({@link io.weir.logging.WeirLogConfigurator}), the text and
 * JSON encoders it chooses between ({@code WEIR_LOG_FORMAT}), and {@link io.weir.logging.Secrets}, which keeps secret client
 * properties out of logs, messages and printed configuration.
 */
package io.weir.logging;
