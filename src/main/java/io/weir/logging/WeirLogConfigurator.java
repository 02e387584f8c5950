package io.weir.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Weir's logging, set up in code when logback starts (found as a service, before logback looks for
 * an XML file): one console appender whose {@link WeirEncoder} writes text or JSON lines
 * ({@code WEIR_LOG_FORMAT}, a system property or the environment; {@code --log-format} sets the
 * former), {@code io.weir} at {@code WEIR_LOG_LEVEL} (INFO by default), the Kafka clients and the
 * embedded broker at WARN ({@code WEIR_LOG_LEVEL} that is no level gives INFO). Code instead of an
 * XML file because reading the file cost ~180 ms of a JVM's start before its first log line (the
 * XML parser and logback's configuration framework: ~450 classes), and a restarted instance's
 * start is part of its recovery.
 *
 * <p>A file of one's own still works: when the system property {@code logback.configurationFile}
 * names one that exists (a file, a class path resource or a URL), or without it a
 * {@code logback-test.xml} is on the class path, this steps aside and logback reads that file. A
 * property naming nothing that exists (a volume not mounted) is warned about and this set-up
 * used, rather than logback's fallback of everything at DEBUG, unmasked.
 */
public final class WeirLogConfigurator extends ContextAwareBase implements Configurator {
    @Override
    public ExecutionStatus configure(LoggerContext context) {
        String own = System.getProperty("logback.configurationFile");
        if (own != null && exists(own)
                || own == null && WeirLogConfigurator.class.getClassLoader().getResource("logback-test.xml") != null) {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        if (own != null) {
            // Else logback would find no file and log everything at DEBUG, unmasked, in its own format.
            addWarn("logback.configurationFile names " + own + ", which does not exist: Weir's logging is used");
        }
        WeirEncoder encoder = new WeirEncoder();
        encoder.setContext(context);
        encoder.setFormat(setting("WEIR_LOG_FORMAT", "text"));
        encoder.start();

        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        console.setContext(context);
        console.setName("CONSOLE");
        console.setEncoder(encoder);
        console.start();

        Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.INFO);
        root.addAppender(console);
        context.getLogger("io.weir").setLevel(Level.toLevel(setting("WEIR_LOG_LEVEL", "INFO"), Level.INFO));
        // The embedded broker and the clients log a lot at INFO (configs, every partition change).
        for (String quiet : new String[] {"org.apache.kafka", "kafka", "state.change.logger", "org.apache.zookeeper"}) {
            context.getLogger(quiet).setLevel(Level.WARN);
        }
        // Unreachable brokers: Weir says once (then every 10 s) what it waits for; the client would
        // warn about every failed connection attempt, about one a second.
        context.getLogger("org.apache.kafka.clients.NetworkClient").setLevel(Level.ERROR);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }

    /** Whether logback can read {@code location}: a file, a class path resource or a URL it can open. */
    static boolean exists(String location) {
        if (new java.io.File(location).isFile()
                || WeirLogConfigurator.class.getClassLoader().getResource(location) != null) {
            return true;
        }
        try (java.io.InputStream in = new java.net.URL(location).openStream()) {
            return true;
        } catch (java.io.IOException | IllegalArgumentException e) {
            return false; // no URL, or none that opens
        }
    }

    /** A system property, else the environment variable of the same name, else {@code otherwise}. */
    private static String setting(String name, String otherwise) {
        String v = System.getProperty(name);
        if (v == null || v.isBlank()) {
            v = System.getenv(name);
        }
        return v == null || v.isBlank() ? otherwise : v.strip();
    }
}
