package io.weir.logging;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.classic.spi.ThrowableProxyUtil;
import ch.qos.logback.core.encoder.EncoderBase;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * Logs as one JSON object per line ({@code WEIR_LOG_FORMAT=json} or {@code --log-format json}):
 * {@code time} (ISO-8601, UTC), {@code level}, {@code thread}, {@code logger}, {@code message},
 * {@code mdc} when set, {@code exception} (the stack trace as text) when there is one. Message
 * and exception pass through {@link Secrets#redact} first.
 */
public final class JsonLineEncoder extends EncoderBase<ILoggingEvent> {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] NOTHING = new byte[0];

    @Override
    public byte[] headerBytes() {
        return NOTHING;
    }

    @Override
    public byte[] encode(ILoggingEvent event) {
        ObjectNode line = JSON.createObjectNode()
                .put("time", Instant.ofEpochMilli(event.getTimeStamp()).toString())
                .put("level", event.getLevel().toString())
                .put("thread", event.getThreadName())
                .put("logger", event.getLoggerName())
                .put("message", Secrets.redact(event.getFormattedMessage()));
        Map<String, String> mdc = event.getMDCPropertyMap();
        if (mdc != null && !mdc.isEmpty()) {
            ObjectNode m = line.putObject("mdc");
            mdc.forEach((k, v) -> m.put(k, Secrets.redact(v)));
        }
        IThrowableProxy thrown = event.getThrowableProxy();
        if (thrown != null) {
            line.put("exception", Secrets.redact(ThrowableProxyUtil.asString(thrown)));
        }
        try {
            return (JSON.writeValueAsString(line) + "\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a log line as JSON", e);
        }
    }

    @Override
    public byte[] footerBytes() {
        return NOTHING;
    }
}
