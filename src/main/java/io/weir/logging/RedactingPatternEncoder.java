package io.weir.logging;

import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.nio.charset.StandardCharsets;

/** The text log format: logback's pattern layout, each line passed through {@link Secrets#redact}. */
public final class RedactingPatternEncoder extends PatternLayoutEncoder {
    @Override
    public byte[] encode(ILoggingEvent event) {
        return Secrets.redact(getLayout().doLayout(event)).getBytes(StandardCharsets.UTF_8);
    }
}
