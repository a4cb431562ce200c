package io.rnic.simulation;

import io.rnic.transport.TransportCounter;
import io.rnic.transport.TransportCounters;

import java.util.ArrayList;
import java.util.List;

/** What a {@link Workload} run did: operations, bytes, recovery counters, time, and every mismatch found. */
public final class SimulationReport
{
    /** Operations that completed successfully, by type below. */
    long operations;
    /** Operations that completed in error: the first of a QP and the WQEs flushed after it. */
    long failedOperations;
    /** QPs that failed after the first, whose errors are the same story told again. */
    int otherFailedQps;
    long writes;
    long reads;
    long sends;
    long atomics;
    long atomicWrites;
    long flushes;
    /** WRITEs and READs among them that went through a memory window ({@code --ops-mix ...,mw}). */
    long windowOperations;
    long bytes;
    long simulatedNs;
    long wallNs;
    long steps;
    boolean timedOut;
    final List<String> failures = new ArrayList<>();
    /** Operations that completed with an error status (the workload stops at the first). */
    final List<String> errors = new ArrayList<>();
    TransportCounters requesterCounters;
    TransportCounters responderCounters;
    String linkSummary;

    public long operations()
    {
        return operations;
    }

    public long bytes()
    {
        return bytes;
    }

    public long simulatedNs()
    {
        return simulatedNs;
    }

    public long wallNs()
    {
        return wallNs;
    }

    public boolean timedOut()
    {
        return timedOut;
    }

    public List<String> failures()
    {
        return failures;
    }

    public List<String> errors()
    {
        return errors;
    }

    public boolean passed()
    {
        return failures.isEmpty() && errors.isEmpty() && !timedOut;
    }

    public TransportCounters requesterCounters()
    {
        return requesterCounters;
    }

    public TransportCounters responderCounters()
    {
        return responderCounters;
    }

    void fail(final String failure)
    {
        if (failures.size() < 100)
        {
            failures.add(failure);
        }
    }

    /** The first QP's error is told; the QPs that fail after it are counted, as they fail for the same reason. */
    void error(final String error)
    {
        if (errors.isEmpty())
        {
            errors.add(error);
        }
        else
        {
            otherFailedQps++;
        }
    }

    public long failedOperations()
    {
        return failedOperations;
    }

    private long both(final TransportCounter counter)
    {
        return requesterCounters.get(counter) + responderCounters.get(counter);
    }

    /** The human summary {@code rnic simulate} prints. */
    public String summary()
    {
        final StringBuilder sb = new StringBuilder();
        sb.append(String.format("operations      %,d completed (%,d write, %,d read, %,d send, %,d atomic, " +
            "%,d atomic write, %,d flush%s)%s%n", operations, writes, reads, sends, atomics, atomicWrites, flushes,
            windowOperations == 0 ? "" : String.format("; %,d of the writes and reads through memory windows",
                windowOperations),
            failedOperations == 0 ? "" : String.format(", %,d failed or flushed", failedOperations)));
        sb.append(String.format("bytes           %,d verified%n", bytes));
        sb.append(String.format("link            %s%n", linkSummary));
        sb.append(String.format("retransmissions %,d packets (%,d local ACK timeouts, %,d implied NAKs)%n",
            both(TransportCounter.RETRANSMITTED_PACKETS), both(TransportCounter.LOCAL_ACK_TIMEOUT),
            both(TransportCounter.IMPLIED_NAK)));
        sb.append(String.format("NAKs            %,d PSN sequence, %,d RNR, %,d invalid request, %,d remote access, " +
            "%,d remote operational%n",
            responderCounters.get(TransportCounter.SEQ_NAK_SENT), responderCounters.get(TransportCounter.RNR_NAK_SENT),
            responderCounters.get(TransportCounter.INVALID_REQUEST_NAK_SENT),
            responderCounters.get(TransportCounter.REMOTE_ACCESS_NAK_SENT),
            responderCounters.get(TransportCounter.REMOTE_OPERATIONAL_NAK_SENT)));
        sb.append(String.format("duplicates      %,d requests, %,d responses; %,d out of sequence; %,d dropped as corrupt%n",
            both(TransportCounter.DUPLICATE_REQUEST), both(TransportCounter.DUPLICATE_RESPONSE),
            both(TransportCounter.OUT_OF_SEQUENCE), both(TransportCounter.DROPPED_INVALID_FRAME)));
        sb.append(String.format("simulated time  %.3f ms in %,d steps%n", simulatedNs / 1e6, steps));
        sb.append(String.format("wall time       %.3f s%n", wallNs / 1e9));
        sb.append("requester       ").append(requesterCounters).append(System.lineSeparator());
        sb.append("responder       ").append(responderCounters).append(System.lineSeparator());
        if (timedOut)
        {
            sb.append("TIMED OUT: the workload did not finish within its simulated time budget").append(System.lineSeparator());
        }
        for (final String error : errors)
        {
            sb.append("ERROR: ").append(error).append(otherFailedQps == 0 ? "" : otherFailedQps == 1 ?
                " (1 other QP failed too)" : " (" + otherFailedQps + " other QPs failed too)").append(System.lineSeparator());
        }
        for (final String failure : failures)
        {
            sb.append("MISMATCH: ").append(failure).append(System.lineSeparator());
        }
        sb.append(passed() ? "PASS" : "FAIL").append(System.lineSeparator());
        return sb.toString();
    }
}
