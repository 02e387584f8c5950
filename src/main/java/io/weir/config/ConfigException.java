package io.weir.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Thrown when a configuration cannot be loaded; it carries every problem found, not only the
 * first, so that a user can fix them all in one go. The message lists them one per line in the
 * {@code file:line:column: message} form and is meant to be printed as it is, without a stack
 * trace.
 */
public final class ConfigException extends Exception {

    private static final long serialVersionUID = 1L;

    private final List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(errors.stream().map(ConfigError::toString).collect(Collectors.joining("\n")));
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one error");
        }
        this.errors = List.copyOf(errors);
    }

    /** The problems found, in file order, then the command-line overrides' in the order given. */
    public List<ConfigError> errors() {
        return errors;
    }
}
