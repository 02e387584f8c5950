package io.weir.state;

/** Which clock a timer follows. */
public enum TimerDomain {
    EVENT_TIME,
    PROCESSING_TIME
}
