package io.weir.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.encoder.EncoderBase;

/**
 * The console encoder {@link WeirLogConfigurator} sets up: {@code format} {@code json} writes through
 * {@link JsonLineEncoder}, {@code text} through {@link RedactingPatternEncoder} with
 * {@code pattern}. One appender with a chosen format, rather than an appender per format, so that
 * logback has no unused appender to warn about (a warning makes it print its whole status to the
 * console, which would break one-object-per-line output).
 */
public final class WeirEncoder extends EncoderBase<ILoggingEvent> {
    private String format = "text";
    private String pattern = "%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n";
    private Encoder<ILoggingEvent> delegate;

    public void setFormat(String format) {
        this.format = format == null ? "text" : format.strip();
    }

    public void setPattern(String pattern) {
        this.pattern = pattern;
    }

    @Override
    public void start() {
        if (format.equals("json")) {
            delegate = new JsonLineEncoder();
        } else {
            if (!format.equals("text")) {
                addError("WEIR_LOG_FORMAT must be text or json, was " + format + "; logging as text");
            }
            RedactingPatternEncoder text = new RedactingPatternEncoder();
            text.setPattern(pattern);
            delegate = text;
        }
        delegate.setContext(getContext());
        delegate.start();
        super.start();
    }

    @Override
    public void stop() {
        if (delegate != null) {
            delegate.stop();
        }
        super.stop();
    }

    @Override
    public byte[] headerBytes() {
        return delegate.headerBytes();
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        return delegate.encode(event);
    }

    @Override
    public byte[] footerBytes() {
        return delegate.footerBytes();
    }
}
