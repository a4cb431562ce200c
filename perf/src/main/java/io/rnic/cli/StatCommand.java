package io.rnic.cli;

import io.rnic.cnc.CncException;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.DriverProcess;
import io.rnic.tools.UsageException;
import io.rnic.tools.options.CommandLine;
import io.rnic.tools.options.GivenOption;
import io.rnic.tools.options.OptionHelp;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;

import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * {@code rnic stat}: the counters of a running driver, as Aeron's {@code AeronStat} prints a media driver's: a header
 * (the driver's pid, start time and heartbeat age), every counter as {@code id: value - label}, then the driver's
 * distinct errors with their counts. It maps the CnC file and reads it, as any other process may, without a command
 * to the driver: its threads never notice. {@code --watch MS} prints a snapshot every MS until Ctrl-C, clearing the
 * screen as AeronStat does; {@code --json} prints one object per snapshot instead.
 */
final class StatCommand
{
    static final String SYNOPSIS = OptionHelp.synopsis("stat", "");
    static final String DETAILS = String.join("\n",
        OptionHelp.help("stat"),
        "Device-wide counters carry rxe's hw_counters names (sent_pkts, rcvd_pkts, duplicate_request,",
        "out_of_seq_request, rcvd_rnr_err, send_rnr_err, rcvd_seq_err, retry_exceeded_err, retry_rnr_exceeded_err,",
        "completer_retry_err, rdma_sends, rdma_recvs) and DCQCN's ConnectX names (np_cnp_sent,",
        "np_ecn_marked_roce_packets, rp_cnp_handled, rp_cnp_ignored); each QP's begin 'qp 0x<qpn> '.",
        "Exit status 1 when no driver is there or ready, or its process is gone (no process holds its lock",
        "DIR/driver.lock: its counters as it left them are shown); 2 (without --watch) when its heartbeat is older",
        "than its client timeout: 'driver not responding (heartbeat N ms ago)'.");

    static final String CLEAR_SCREEN = "\u001b[H\u001b[2J";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss");

    private StatCommand()
    {
    }

    static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        return run(args, out, err, CncDirectory.SHM, Long.MAX_VALUE);
    }

    /**
     * With {@code shm} where drivers' directories are looked for when none is named, and at most
     * {@code maxSnapshots} snapshots when watching (a test's bound on what Ctrl-C ends); the screen is cleared before
     * each snapshot only when {@code out} is this process's terminal.
     */
    static int run(
        final String[] args, final PrintStream out, final PrintStream err, final Path shm, final long maxSnapshots)
    {
        final Console console = System.console();
        return run(args, out, err, shm, maxSnapshots, out == System.out && console != null && console.isTerminal());
    }

    /** As above, {@code terminal} telling whether {@code out} is a terminal (escapes into a pipe or file are noise). */
    static int run(
        final String[] args, final PrintStream out, final PrintStream err, final Path shm, final long maxSnapshots,
        final boolean terminal)
    {
        Path dir = null;
        long watchMs = 0;
        boolean json = false;
        Pattern filter = null;
        for (final GivenOption given : CommandLine.parse("stat", args).optionsOnly())
        {
            switch (given.option())
            {
                case INTERFACE -> dir = CncDirectory.ofInterface(given.spelling(), given.text());
                case DIR -> dir = given.path();
                case WATCH -> watchMs = given.number();
                case JSON -> json = true;
                case FILTER ->
                {
                    try
                    {
                        filter = Pattern.compile(given.text());
                    }
                    catch (final PatternSyntaxException ex)
                    {
                        throw new UsageException("--filter '" + given.text() + "' is not a regular expression: " +
                            ex.getDescription());
                    }
                }
                default -> throw given.notHandled("stat");
            }
        }
        final Path directory;
        final CncFile cnc;
        final Object cncFileKey;
        try
        {
            directory = dir != null ? dir : CncDirectory.only(shm);
            cncFileKey = fileKey(directory.resolve(CncFile.FILE_NAME));
            cnc = CncFile.open(directory);
        }
        catch (final CncException ex)
        {
            err.println("rnic stat: " + ex.getMessage());
            return 1;
        }
        try (cnc)
        {
            final CountersReader counters = new CountersReader(
                cnc.countersMetadataBuffer(), cnc.countersValuesBuffer(), StandardCharsets.US_ASCII);
            for (long snapshot = 1; ; snapshot++)
            {
                final String stopped = stopped(directory, cncFileKey);
                if (stopped != null)
                {
                    // the mapping outlives the file: redrawing it would show a driver that is no more
                    err.println("rnic stat: " + stopped);
                    return 1;
                }
                final Snapshot taken = Snapshot.take(cnc, counters, filter, directory);
                if (json)
                {
                    out.println(JsonWriter.write(taken.toMap()));
                }
                else
                {
                    if (watchMs > 0 && terminal)
                    {
                        out.print(CLEAR_SCREEN);
                    }
                    out.print(taken.toText());
                }
                out.flush();
                if (taken.notRunning() != null)
                {
                    err.println("rnic stat: " + taken.notRunning() + "; its counters as it left them above");
                    return 1;
                }
                if (watchMs == 0)
                {
                    if (!taken.responding())
                    {
                        err.println("rnic stat: " + taken.notResponding());
                        return 2;
                    }
                    return 0;
                }
                if (snapshot >= maxSnapshots)
                {
                    return 0;
                }
                try
                {
                    TimeUnit.MILLISECONDS.sleep(watchMs);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    return 0;
                }
            }
        }
    }

    /** The CnC file's identity: a driver that stopped removed it, and a new one made another. */
    private static Object fileKey(final Path cncFile)
    {
        try
        {
            return Files.readAttributes(cncFile, BasicFileAttributes.class).fileKey();
        }
        catch (final IOException ex)
        {
            return null; // CncFile.open says what is missing
        }
    }

    /** Null while the CnC file mapped is still the driver's; else one line saying the driver stopped. */
    private static String stopped(final Path directory, final Object cncFileKey)
    {
        final Object now = fileKey(directory.resolve(CncFile.FILE_NAME));
        if (now == null)
        {
            return "the rnic driver at " + directory + " stopped (its " + CncFile.FILE_NAME + " is gone)";
        }
        return now.equals(cncFileKey) ? null : "the rnic driver at " + directory + " stopped and another one " +
            "serves the directory now: run stat again";
    }

    /**
     * One reading of the CnC file: header, counters (those the filter keeps), distinct errors; {@code notRunning}
     * null while the driver's process holds its lock, else why it is not running.
     */
    record Snapshot(
        long nowMs, long driverPid, long startTimeMs, long heartbeatAgeMs, long clientTimeoutMs,
        List<Counter> counters, List<Error> errors, String notRunning)
    {
        record Counter(int id, int typeId, String label, long value)
        {
        }

        record Error(int count, long firstMs, long lastMs, String text)
        {
        }

        static Snapshot take(final CncFile cnc, final CountersReader reader, final Pattern filter, final Path directory)
        {
            final long nowMs = System.currentTimeMillis();
            final List<Counter> counters = new ArrayList<>();
            reader.forEach((counterId, typeId, keyBuffer, label) ->
            {
                if (filter == null || filter.matcher(label).find())
                {
                    counters.add(new Counter(counterId, typeId, label, reader.getCounterValue(counterId)));
                }
            });
            final List<Error> errors = new ArrayList<>();
            ErrorLogReader.read(cnc.errorLogBuffer(), (count, firstMs, lastMs, text) ->
                errors.add(new Error(count, firstMs, lastMs, text)));
            return new Snapshot(nowMs, cnc.driverPid(), cnc.startTimeMs(), Math.max(0, nowMs - cnc.heartbeatMs()),
                TimeUnit.NANOSECONDS.toMillis(cnc.clientTimeoutNs()), counters, errors,
                DriverProcess.notRunning(directory, cnc.driverPid()));
        }

        /**
         * Whether the driver's process runs and its heartbeat is within its client timeout: what its clients require
         * of it.
         */
        boolean responding()
        {
            return notRunning == null && heartbeatAgeMs <= clientTimeoutMs;
        }

        String notResponding()
        {
            return "driver not responding (heartbeat " + heartbeatAgeMs + " ms ago)";
        }

        String toText()
        {
            final StringBuilder text = new StringBuilder();
            text.append(LocalTime.ofInstant(Instant.ofEpochMilli(nowMs), ZoneId.systemDefault()).format(TIME))
                .append(" - rnic driver pid ").append(driverPid)
                .append(", started ").append(Instant.ofEpochMilli(startTimeMs).truncatedTo(ChronoUnit.SECONDS))
                .append(", ").append(notRunning != null ? "NOT RUNNING (its lock is free: killed or crashed)" :
                    responding() ? "heartbeat " + heartbeatAgeMs + " ms ago" : notResponding())
                .append('\n')
                .append("=".repeat(80)).append('\n');
            for (final Counter counter : counters)
            {
                text.append(String.format("%3d: %,20d - %s%n", counter.id(), counter.value(), counter.label()));
            }
            if (!errors.isEmpty())
            {
                text.append("--\n").append(errors.size()).append(" distinct error").append(errors.size() == 1 ? "" : "s")
                    .append(":\n");
                for (final Error error : errors)
                {
                    text.append(String.format("%,d observation%s from %s to %s:%n%s%n", error.count(),
                        error.count() == 1 ? "" : "s", Instant.ofEpochMilli(error.firstMs()),
                        Instant.ofEpochMilli(error.lastMs()), error.text()));
                }
            }
            return text.toString();
        }

        Map<String, Object> toMap()
        {
            final Map<String, Object> map = new LinkedHashMap<>();
            map.put("time_ms", nowMs);
            map.put("driver_pid", driverPid);
            map.put("start_time_ms", startTimeMs);
            map.put("heartbeat_age_ms", heartbeatAgeMs);
            map.put("running", notRunning == null);
            map.put("responding", responding());
            final List<Object> counterList = new ArrayList<>();
            for (final Counter counter : counters)
            {
                final Map<String, Object> each = new LinkedHashMap<>();
                each.put("id", counter.id());
                each.put("type_id", counter.typeId());
                each.put("label", counter.label());
                each.put("value", counter.value());
                counterList.add(each);
            }
            map.put("counters", counterList);
            final List<Object> errorList = new ArrayList<>();
            for (final Error error : errors)
            {
                final Map<String, Object> each = new LinkedHashMap<>();
                each.put("count", error.count());
                each.put("first_ms", error.firstMs());
                each.put("last_ms", error.lastMs());
                each.put("error", error.text());
                errorList.add(each);
            }
            map.put("errors", errorList);
            return map;
        }
    }
}
