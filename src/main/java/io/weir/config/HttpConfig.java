package io.weir.config;

/**
 * The HTTP endpoint serving health, metrics and checkpoint statistics: a port, or {@link #DISABLED}
 * (0) for no endpoint at all.
 */
public record HttpConfig(int port) {

    public static final int DISABLED = 0;
    public static final int DEFAULT_PORT = 8080;

    public HttpConfig {
        if (port < DISABLED || port > 65535) {
            throw new IllegalArgumentException("http port must be between 0 and 65535, was " + port);
        }
    }

    public boolean enabled() {
        return port != DISABLED;
    }
}
