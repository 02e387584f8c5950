package io.weir.config;

/**
 * Where a value of the configuration came from: a file position (1-based line and column), or a
 * source without positions such as a {@code --set} override (line and column 0). Every node of the
 * parsed tree carries one so that each error can point at the value that caused it.
 */
record Origin(String file, int line, int column) {

    /** An origin without a position, such as {@code --set processing.threads}. */
    static Origin of(String source) {
        return new Origin(source, 0, 0);
    }

    /** The position as errors print it: {@code file:line:column}, or the source alone without one. */
    String where() {
        return line > 0 ? file + ":" + line + ":" + column : file;
    }

    ConfigError error(String message) {
        return new ConfigError(file, line, column, message);
    }
}
