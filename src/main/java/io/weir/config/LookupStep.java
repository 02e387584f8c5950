package io.weir.config;

import java.util.Objects;

/**
 * {@code lookup: { table: { topic, format }, as: <field>, type: inner | left }}: enriches each
 * record with the latest value of its key in a table topic (compacted, co-partitioned with the
 * source), materialised in the task's state and kept current as the topic changes; a tombstone
 * deletes the key. The output is the record's value with field {@code as} set to the table's value;
 * an inner lookup drops a record whose key is not in the table, a left one sends it with null.
 */
public record LookupStep(SideInput table, String as, JoinStep.JoinType joinType) implements OperatorStep {
    public LookupStep {
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(as, "as");
        Objects.requireNonNull(joinType, "joinType");
    }

    @Override
    public String type() {
        return "lookup";
    }
}
