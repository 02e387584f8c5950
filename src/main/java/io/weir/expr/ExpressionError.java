package io.weir.expr;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * An expression that does not compile: a syntax error, an undeclared variable or function, a type
 * error, or a filter that cannot give a bool. Each {@link Issue} has its position within the
 * expression text (1-based line and column) and CEL's message without position prefix or caret
 * picture, so that a caller can place it inside the file the expression came from.
 */
public final class ExpressionError extends Exception {

    private static final long serialVersionUID = 1L;

    /** Which stage refused the expression. */
    public enum Kind {
        /** The text is not CEL. */
        SYNTAX,
        /** Type checking failed: an undeclared name, no matching overload, a wrong field access. */
        CHECK,
        /** The expression is valid but its result type does not fit its use (a filter not giving a bool). */
        RESULT
    }

    /** One problem at a 1-based line and column of the expression text. */
    public record Issue(int line, int column, String message) {
        public Issue {
            Objects.requireNonNull(message, "message");
            if (line < 1 || column < 1) {
                throw new IllegalArgumentException("line and column must be positive, was " + line + ":" + column);
            }
        }

        @Override
        public String toString() {
            return line + ":" + column + ": " + message;
        }
    }

    @SuppressWarnings("serial") // an immutable List.copyOf of records
    private final List<Issue> issues;

    private final Kind kind;

    ExpressionError(Kind kind, List<Issue> issues) {
        super(issues.stream().map(Issue::toString).collect(Collectors.joining("; ")), null, false, false);
        if (issues.isEmpty()) {
            throw new IllegalArgumentException("an expression error needs at least one issue");
        }
        this.issues = List.copyOf(issues);
        this.kind = Objects.requireNonNull(kind, "kind");
    }

    public Kind kind() {
        return kind;
    }

    /** The problems in the order CEL reported them; never empty. */
    public List<Issue> issues() {
        return issues;
    }
}
