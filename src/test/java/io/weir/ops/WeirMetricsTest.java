package io.weir.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.weir.app.Instance;
import io.weir.app.Jobs;
import io.weir.config.ConfigLoader;
import io.weir.config.WeirConfig;
import io.weir.fixtures.FakeClock;
import io.weir.fixtures.Http;
import io.weir.fixtures.TotalsJob;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WeirMetricsTest {

    @Test
    void theLastCheckpointsAgeCountsFromTheStartUntilTheFirstCompletes() throws Exception {
        // After a restart a checkpoint that never completes must still show as stale: NaN would
        // never pass an alert's threshold.
        WeirConfig config = new ConfigLoader().load(TotalsJob.EXAMPLE, Map.of(), List.of("instance-id=i1"));
        FakeClock clock = new FakeClock(1_000_000);
        try (Instance instance = new Instance(Jobs.settings(config), Jobs.clients(config))) {
            WeirMetrics metrics = new WeirMetrics(instance, clock);
            clock.advance(Duration.ofSeconds(400));
            assertEquals(
                    400.0,
                    Http.sample(metrics.scrape(), "weir_checkpoint_last_completed_age_seconds")
                            .orElseThrow());
        }
    }
}
