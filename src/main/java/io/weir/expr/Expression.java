package io.weir.expr;

import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.checker.CelStandardDeclarations;
import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelIssue;
import dev.cel.common.CelOptions;
import dev.cel.common.CelValidationException;
import dev.cel.common.ast.CelExpr;
import dev.cel.common.types.CelKind;
import dev.cel.common.types.CelType;
import dev.cel.common.types.MapType;
import dev.cel.common.types.NullableType;
import dev.cel.common.types.SimpleType;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelVariableResolver;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A CEL expression compiled and type-checked once against the record variables, then evaluated per
 * record. It is immutable and thread-safe: one compiled program serves every task. Variables are
 * read through a resolver, so only those the expression refers to are asked of {@link Variables}.
 * Results are normalised into the package's value model by {@link Values}.
 */
public final class Expression {

    private static final Map<ExpressionTypes, Cel> ENVIRONMENTS = new ConcurrentHashMap<>();

    private final String text;
    private final ExpressionTypes types;
    private final CelType resultType;
    private final CelRuntime.Program program;
    /**
     * The fields of an expression that is only {@code value.a.b…} (as {@code key-by: value.user}
     * is), or null: read straight from the value's maps where the interpreter's walk over the tree
     * cost more than the rest of a repartitioning step. Anything but a plain result along maps that
     * have the fields is left to the interpreter, so results and errors stay CEL's.
     */
    private final String[] valuePath;

    private Expression(
            String text, ExpressionTypes types, CelType resultType, CelRuntime.Program program, String[] valuePath) {
        this.text = text;
        this.types = types;
        this.resultType = resultType;
        this.program = program;
        this.valuePath = valuePath;
    }

    /** Compiles and type-checks {@code text}; every problem found is an issue of the error. */
    public static Expression compile(String text, ExpressionTypes types) throws ExpressionError {
        Objects.requireNonNull(text, "text");
        Cel cel = ENVIRONMENTS.computeIfAbsent(Objects.requireNonNull(types, "types"), Expression::environment);
        CelAbstractSyntaxTree ast;
        try {
            ast = cel.parse(text).getAst();
        } catch (CelValidationException e) {
            throw new ExpressionError(ExpressionError.Kind.SYNTAX, issues(e));
        }
        try {
            ast = cel.check(ast).getAst();
        } catch (CelValidationException e) {
            throw new ExpressionError(ExpressionError.Kind.CHECK, issues(e));
        }
        try {
            return new Expression(
                    text, types, ast.getResultType(), cel.createProgram(ast), valuePath(ast.getExpr(), types));
        } catch (CelEvaluationException e) {
            throw new ExpressionError(
                    ExpressionError.Kind.CHECK, List.of(new ExpressionError.Issue(1, 1, Values.clean(e.getMessage()))));
        }
    }

    /**
     * Compiles a condition, as filters and route cases use: like {@link #compile} and then its
     * static type must be bool or dyn (checked per record by {@link #test}).
     */
    public static Expression compileCondition(String text, String what, ExpressionTypes types) throws ExpressionError {
        Expression expression = compile(text, types);
        if (!expression.mayBeBool()) {
            throw new ExpressionError(
                    ExpressionError.Kind.RESULT,
                    List.of(new ExpressionError.Issue(
                            1, 1, what + " must give a bool, this gives " + expression.resultTypeName())));
        }
        return expression;
    }

    /**
     * CEL's options: ints, uints and doubles compare by their numeric value ({@code value.price > 9.99}
     * holds for a price of 10 as for 10.5, as a JSON field may carry either), as CEL's language
     * definition says; the library's default leaves these overloads out, and those of a double with
     * an int are {@link NumericComparisons}' (the library's ordered NaN above every number).
     */
    private static final CelOptions OPTIONS =
            CelOptions.current().enableHeterogeneousNumericComparisons(true).build();

    private static Cel environment(ExpressionTypes types) {
        return CelFactory.standardCelBuilder()
                .setOptions(OPTIONS)
                // Each standard part given explicitly, as the library wants for replacing some.
                .setStandardEnvironmentEnabled(false)
                .setStandardDeclarations(CelStandardDeclarations.newBuilder().build())
                .setStandardFunctions(NumericComparisons.standardFunctions())
                .addFunctionBindings(NumericComparisons.bindings())
                .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
                // CEL's common extensions, as most CEL environments offer them: strings
                // (upperAscii, split, trim, …), math (greatest, least, …), sets, base64 and
                // cel.bind.
                .addCompilerLibraries(
                        CelExtensions.strings(),
                        CelExtensions.math(OPTIONS),
                        CelExtensions.sets(OPTIONS),
                        CelExtensions.encoders(),
                        CelExtensions.bindings())
                .addRuntimeLibraries(
                        CelExtensions.strings(),
                        CelExtensions.math(OPTIONS),
                        CelExtensions.sets(OPTIONS),
                        CelExtensions.encoders())
                .addVar("value", type(types.value()))
                .addVar("key", type(types.key()))
                .addVar("headers", MapType.create(SimpleType.STRING, SimpleType.STRING))
                .addVar("timestamp", SimpleType.INT)
                .addVar("topic", SimpleType.STRING)
                .addVar("partition", SimpleType.INT)
                .addVar("offset", SimpleType.INT)
                .build();
    }

    /** The fields of {@code value.a.b…} read from a value of dynamic type, or null for anything else. */
    private static String[] valuePath(CelExpr expr, ExpressionTypes types) {
        if (types.value() != ExpressionTypes.Kind.DYN) {
            return null;
        }
        List<String> fields = new ArrayList<>();
        CelExpr e = expr;
        while (e.getKind() == CelExpr.ExprKind.Kind.SELECT && !e.select().testOnly()) {
            fields.add(e.select().field());
            e = e.select().operand();
        }
        if (fields.isEmpty()
                || e.getKind() != CelExpr.ExprKind.Kind.IDENT
                || !e.ident().name().equals("value")) {
            return null;
        }
        Collections.reverse(fields);
        return fields.toArray(String[]::new);
    }

    /** Whether {@link #evaluate} reads the result straight from the value when it can. */
    boolean readsValuePath() {
        return valuePath != null;
    }

    /**
     * A text or bytes key or value may be null (a record without a key, a tombstone): declared as
     * CEL's nullable wrapper of string or bytes, so {@code key != null} type-checks while the
     * functions of text still apply and a number is still no text.
     */
    private static CelType type(ExpressionTypes.Kind kind) {
        return switch (kind) {
            case DYN -> SimpleType.DYN;
            case STRING -> NullableType.create(SimpleType.STRING);
            case BYTES -> NullableType.create(SimpleType.BYTES);
        };
    }

    private static List<ExpressionError.Issue> issues(CelValidationException e) {
        return e.getErrors().stream().map(Expression::issue).toList();
    }

    private static ExpressionError.Issue issue(CelIssue issue) {
        int line = Math.max(1, issue.getSourceLocation().getLine());
        int column = Math.max(0, issue.getSourceLocation().getColumn()) + 1;
        // A text key or value is declared as a nullable string (see type()); users wrote a string.
        String message = Values.clean(issue.getMessage())
                .replace("wrapper(string)", "string")
                .replace("wrapper(bytes)", "bytes");
        return new ExpressionError.Issue(line, column, message);
    }

    /** The text as written. */
    public String text() {
        return text;
    }

    /** The static result type in CEL's notation, such as {@code bool}, {@code int} or {@code dyn}. */
    public String resultTypeName() {
        return name(resultType);
    }

    /** Whether the result may be a bool: its static type is bool or only known at evaluation. */
    public boolean mayBeBool() {
        return resultType.kind() == CelKind.BOOL
                || resultType.kind() == CelKind.DYN
                || resultType.kind() == CelKind.ANY;
    }

    /** Evaluates against one record; the result follows the package's value model. */
    public Object evaluate(Variables variables) throws EvaluationError {
        if (valuePath != null) {
            Object v = readValuePath(variables.value());
            if (v != null) {
                return v;
            }
        }
        return interpret(variables);
    }

    /**
     * The plain result (string, int, double or bool) of {@code value.a.b…} read from {@code value}'s
     * maps, or null where that is left to the interpreter (a field missing, a value not a map, a
     * result that is a list, map, null or bytes).
     */
    Object readValuePath(Object value) {
        Object v = value;
        for (int i = 0; i < valuePath.length && v != null; i++) {
            v = v instanceof Map<?, ?> map ? map.get(valuePath[i]) : null;
        }
        return v instanceof String || v instanceof Long || v instanceof Double || v instanceof Boolean ? v : null;
    }

    /** Evaluates by CEL's interpreter; for tests, to hold {@link #evaluate}'s shortcut against it. */
    Object interpret(Variables variables) throws EvaluationError {
        Object result;
        try {
            result = program.eval(resolver(variables));
        } catch (CelEvaluationException e) {
            throw new EvaluationError(Values.clean(e.getMessage()));
        } catch (RuntimeException e) {
            throw new EvaluationError("the expression failed: " + e);
        }
        return Values.normalise(result);
    }

    /** Evaluates a condition; a result other than a bool is an error naming the type seen. */
    public boolean test(Variables variables) throws EvaluationError {
        Object result = evaluate(variables);
        if (result instanceof Boolean bool) {
            return bool;
        }
        throw new EvaluationError("expected a bool from " + text + ", got " + Values.typeName(result));
    }

    private static CelVariableResolver resolver(Variables v) {
        return name -> Optional.ofNullable(
                switch (name) {
                    case "value" -> Values.bind(v.value());
                    case "key" -> Values.bind(v.key());
                    case "headers" -> v.headers();
                    case "timestamp" -> v.timestamp();
                    case "topic" -> v.topic();
                    case "partition" -> v.partition();
                    case "offset" -> v.offset();
                    default -> null;
                });
    }

    private static String name(CelType type) {
        if (type instanceof NullableType nullable) {
            return name(nullable.targetType()); // a text key or value: "string", null or not
        }
        if (type.parameters().isEmpty()) {
            return type.name();
        }
        return type.name() + "("
                + String.join(
                        ", ", type.parameters().stream().map(Expression::name).toList()) + ")";
    }

    /** The types the expression was compiled with. */
    public ExpressionTypes types() {
        return types;
    }

    /** Expressions are equal when compiled from the same text with the same types. */
    @Override
    public boolean equals(Object other) {
        return other instanceof Expression that && text.equals(that.text) && types.equals(that.types);
    }

    @Override
    public int hashCode() {
        return Objects.hash(text, types);
    }

    @Override
    public String toString() {
        return text;
    }
}
