package io.rnic.tools;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A tool run in the test's JVM through its entry point, with what it printed: the in-memory tests read a tool's
 * output as its user would, and an exception that escaped shows in {@code err} (status 99) instead of ending the test
 * with a stack trace of the wrong thread.
 */
public record CapturedRun(int status, String out, String err)
{
    /** A tool's entry point: {@code PerftestTool.run} for a kind, {@code Rping::run}. */
    public interface Tool
    {
        int run(String[] args, PrintStream out, PrintStream err) throws IOException;
    }

    /**
     * A server and a client of one tool side by side on two threads, as two users would start them; returns {client,
     * server}, each within a minute.
     */
    public static CapturedRun[] serverAndClient(final Tool tool, final List<String> server, final List<String> client)
        throws Exception
    {
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> of(tool, server));
            final Future<CapturedRun> clientRun = threads.submit(() -> of(tool, client));
            return new CapturedRun[]{ clientRun.get(60, TimeUnit.SECONDS), serverRun.get(60, TimeUnit.SECONDS) };
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    /**
     * {@link #serverAndClient}, the client started only once {@code serverReady} holds (within a minute): for a server
     * whose port rejects a connect at once until it listens (a driver's RDMA CM, as the kernel's).
     */
    public static CapturedRun[] serverThenClient(final Tool tool, final List<String> server, final List<String> client,
        final java.util.function.BooleanSupplier serverReady) throws Exception
    {
        final ExecutorService threads = Executors.newFixedThreadPool(2);
        try
        {
            final Future<CapturedRun> serverRun = threads.submit(() -> of(tool, server));
            final long deadlineNs = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
            while (!serverReady.getAsBoolean() && !serverRun.isDone() && System.nanoTime() < deadlineNs)
            {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000L); // a condition polled, not a sleep
            }
            final Future<CapturedRun> clientRun = threads.submit(() -> of(tool, client));
            return new CapturedRun[]{ clientRun.get(60, TimeUnit.SECONDS), serverRun.get(60, TimeUnit.SECONDS) };
        }
        finally
        {
            threads.shutdownNow();
        }
    }

    /** Runs the tool; an IOException is reported as RnicCli reports it (its message, status 2). */
    public static CapturedRun of(final Tool tool, final List<String> args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
            PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8))
        {
            try
            {
                status = tool.run(args.toArray(String[]::new), o, e);
            }
            catch (final IOException ex)
            {
                e.println(ex.getMessage());
                status = 2;
            }
            catch (final RuntimeException ex)
            {
                ex.printStackTrace(e);
                status = 99;
            }
        }
        return new CapturedRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
