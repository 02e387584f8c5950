package io.weir.config;

import java.util.Objects;

/**
 * One problem found in a configuration: where it is and what is wrong. The {@code file} is the
 * configuration file as the user named it, or {@code --set key} for a problem in a command-line
 * override; {@code line} and {@code column} are 1-based, or 0 when the problem has no position
 * (an unreadable file, an override). {@link #toString()} gives the form compilers use,
 * {@code file:line:column: message}, so that editors and terminals can link to it.
 */
public record ConfigError(String file, int line, int column, String message) {

    public ConfigError {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(message, "message");
        if (line < 0 || column < 0) {
            throw new IllegalArgumentException(
                    "line and column must be 0 (unknown) or positive, was " + line + ":" + column);
        }
    }

    /** Whether the error points at a line and column of a file. */
    public boolean hasPosition() {
        return line > 0;
    }

    @Override
    public String toString() {
        return hasPosition() ? file + ":" + line + ":" + column + ": " + message : file + ": " + message;
    }
}
