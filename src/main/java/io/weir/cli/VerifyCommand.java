package io.weir.cli;

import io.weir.tools.RunningTotalsVerifier;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code weir verify}: checks a running-totals output against its input on real topics. */
@Command(name = "verify", description = "Verify that a running-totals output counts every input exactly once.")
public final class VerifyCommand implements Callable<Integer> {
    @Option(names = "--bootstrap", required = true, description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--input", defaultValue = "orders", description = "Input topic (default: ${DEFAULT-VALUE}).")
    String input;

    @Option(names = "--output", defaultValue = "totals", description = "Output topic (default: ${DEFAULT-VALUE}).")
    String output;

    @Option(names = "--at-least-once", description = "Allow repeated outputs after restores (no loss still required).")
    boolean atLeastOnce;

    @Override
    public Integer call() throws Exception {
        RunningTotalsVerifier.Result result = new RunningTotalsVerifier(bootstrap).verify(input, output, !atLeastOnce);
        System.out.println(result);
        return result.ok() ? 0 : 1;
    }
}
