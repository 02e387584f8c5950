package io.weir.config;

import io.weir.expr.Expression;
import io.weir.expr.ExpressionError;
import io.weir.expr.ExpressionTypes;
import java.util.Optional;

/**
 * Compiles the CEL expressions of the file at loading, so that a syntax or type error is reported
 * like any other configuration error: at the expression's position in the file, moved to the
 * line and column CEL names when the text is written on one line (after the opening quote of a
 * quoted scalar), and at the scalar with the position inside the expression named otherwise.
 */
final class ExpressionBinder {

    private ExpressionBinder() {}

    /** Compiles the expression at {@code node}, reported as {@code path}. */
    static Optional<Expression> expression(YamlNode node, String path, ExpressionTypes types, ErrorList errors) {
        return compile(node, path, types, errors, null);
    }

    /**
     * Compiles a condition, which must give a bool; {@code what} names it in the message, as in
     * "a filter must give a bool, this gives int".
     */
    static Optional<Expression> condition(
            YamlNode node, String path, String what, ExpressionTypes types, ErrorList errors) {
        return compile(node, path, types, errors, what);
    }

    private static Optional<Expression> compile(
            YamlNode node, String path, ExpressionTypes types, ErrorList errors, String condition) {
        if (!(node instanceof YamlNode.Scalar scalar) || scalar.isNull()) {
            errors.add(
                    node.origin(),
                    path + " must be a CEL expression" + (condition == null ? "" : " giving a bool") + ", was "
                            + node.describe());
            return Optional.empty();
        }
        if (scalar.text().isBlank()) {
            errors.add(scalar.origin(), path + " must not be empty: expected a CEL expression");
            return Optional.empty();
        }
        try {
            return Optional.of(
                    condition == null
                            ? Expression.compile(scalar.text(), types)
                            : Expression.compileCondition(scalar.text(), condition, types));
        } catch (ExpressionError e) {
            String lead =
                    switch (e.kind()) {
                        case SYNTAX -> "syntax error in CEL expression: ";
                        case CHECK -> "type error in CEL expression: ";
                        case RESULT -> "";
                    };
            for (ExpressionError.Issue issue : e.issues()) {
                boolean atStart = e.kind() == ExpressionError.Kind.RESULT;
                errors.add(
                        atStart ? scalar.origin() : at(scalar, issue),
                        path + ": " + lead + issue.message() + (atStart ? "" : inside(scalar, issue)));
            }
            return Optional.empty();
        }
    }

    /** Where a position inside the expression is in the file, as near as the layout allows. */
    private static Origin at(YamlNode.Scalar scalar, ExpressionError.Issue issue) {
        Origin origin = scalar.origin();
        if (origin.line() == 0 || issue.line() != 1 || scalar.layout() == YamlNode.Scalar.Layout.UNMAPPED) {
            return origin;
        }
        int quote = scalar.layout() == YamlNode.Scalar.Layout.QUOTED ? 1 : 0;
        return new Origin(origin.file(), origin.line(), origin.column() + quote + issue.column() - 1);
    }

    /** The position inside the expression, for messages whose origin could not be moved there. */
    private static String inside(YamlNode.Scalar scalar, ExpressionError.Issue issue) {
        boolean moved =
                scalar.origin().line() > 0 && issue.line() == 1 && scalar.layout() != YamlNode.Scalar.Layout.UNMAPPED;
        return moved ? "" : " (at line " + issue.line() + ", column " + issue.column() + " of the expression)";
    }
}
