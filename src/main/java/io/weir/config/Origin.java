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

    /**
     * Where an error of a rule between this value and {@code related} ones is reported: here,
     * unless this is a file position and one of them came from a {@code --set}, which is then the
     * change that broke the rule ({@code --set processing.checkpoint.max-concurrent=5} against the
     * file's {@code retain: 3}).
     */
    Origin or(Origin... related) {
        if (line > 0) {
            for (Origin other : related) {
                if (other.line == 0) {
                    return other;
                }
            }
        }
        return this;
    }

    ConfigError error(String message) {
        return new ConfigError(file, line, column, message);
    }
}
