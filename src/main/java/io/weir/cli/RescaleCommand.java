package io.weir.cli;

import io.weir.app.Jobs;
import io.weir.app.Rescaler;
import io.weir.config.WeirConfig;
import io.weir.logging.Secrets;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code weir rescale}: after partitions were added to a stopped job's inputs, re-splits the state
 * of its last checkpoint by the new count, so that the job starts with it ({@link Rescaler}).
 * Exit 0 when rescaled or nothing needed it, {@link #REFUSED} when refused (nothing committed),
 * {@link JobConfigOptions#INVALID} for an invalid job file,
 * {@link #FAILED} when it failed: it commits in one transaction, so running it again either re-splits
 * or finds nothing left to rescale.
 */
@Command(
        name = "rescale",
        mixinStandardHelpOptions = true,
        description = "Re-split a stopped job's state after partitions were added to its input topics.")
public final class RescaleCommand implements Callable<Integer> {
    /** Exit code of a refused rescale: nothing was written. */
    static final int REFUSED = 1;
    /** Exit code of a rescale that failed (the broker, a topic, the state); running it again is safe. */
    static final int FAILED = 3;

    @Mixin
    JobConfigOptions job;

    @Option(names = "--dry-run", description = "Check and report what would be re-split; write nothing.")
    boolean dryRun;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        WeirConfig loaded = job.loadOrReport();
        if (loaded == null) {
            return JobConfigOptions.INVALID;
        }
        try {
            new Rescaler(Jobs.settings(loaded), Jobs.clients(loaded), line -> {
                        out.println(line);
                        out.flush();
                    })
                    .rescale(dryRun);
            return 0;
        } catch (Rescaler.Refused e) {
            err.println("weir rescale: refused: " + Secrets.redact(e.getMessage()));
            err.flush();
            return REFUSED;
        } catch (Exception e) {
            err.println("weir rescale: failed: " + Secrets.redact(String.valueOf(e))
                    + " (run it again: it re-splits, or says there is nothing left to rescale)");
            err.flush();
            return FAILED;
        }
    }
}
