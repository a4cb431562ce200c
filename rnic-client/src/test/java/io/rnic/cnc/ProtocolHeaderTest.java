package io.rnic.cnc;

import io.rnic.cm.CmState;
import io.rnic.cnc.command.AllocMwFlyweight;
import io.rnic.cnc.command.AsyncEventsOpenedFlyweight;
import io.rnic.cnc.command.AttachFlyweight;
import io.rnic.cnc.command.AttachedFlyweight;
import io.rnic.cnc.command.CmAcceptFlyweight;
import io.rnic.cnc.command.CmConnectFlyweight;
import io.rnic.cnc.command.CmPortFlyweight;
import io.rnic.cnc.command.CmRejectFlyweight;
import io.rnic.cnc.command.CorrelatedMessageFlyweight;
import io.rnic.cnc.command.CqCreatedFlyweight;
import io.rnic.cnc.command.CreateCqFlyweight;
import io.rnic.cnc.command.CreateQpFlyweight;
import io.rnic.cnc.command.CreateSrqFlyweight;
import io.rnic.cnc.command.ErrorAnswerFlyweight;
import io.rnic.cnc.command.HandleFlyweight;
import io.rnic.cnc.command.MacResolvedFlyweight;
import io.rnic.cnc.command.ModifyQpFlyweight;
import io.rnic.cnc.command.ModifySrqFlyweight;
import io.rnic.cnc.command.MrRegisteredFlyweight;
import io.rnic.cnc.command.MwAllocatedFlyweight;
import io.rnic.cnc.command.OpenAsyncEventsFlyweight;
import io.rnic.cnc.command.QpCreatedFlyweight;
import io.rnic.cnc.command.QpModifiedFlyweight;
import io.rnic.cnc.command.RegisterMrFlyweight;
import io.rnic.cnc.command.ResolveMacFlyweight;
import io.rnic.cnc.command.SrqAttributesFlyweight;
import io.rnic.cnc.command.SrqCreatedFlyweight;
import io.rnic.shm.FdSocket;
import io.rnic.shm.SharedMemory;
import io.rnic.verbs.AccessFlags;
import io.rnic.verbs.AsyncEvent;
import io.rnic.verbs.CompletionQueue;
import io.rnic.verbs.Errno;
import io.rnic.verbs.EventRing;
import io.rnic.verbs.PathMtu;
import io.rnic.verbs.QpAttrMask;
import io.rnic.verbs.QpState;
import io.rnic.verbs.QpType;
import io.rnic.verbs.ScatterGatherList;
import io.rnic.verbs.SendFlags;
import io.rnic.verbs.SrqAttrMask;
import io.rnic.verbs.WcOpcode;
import io.rnic.verbs.WcStatus;
import io.rnic.verbs.WorkCompletion;
import io.rnic.verbs.WorkRequestRing;
import io.rnic.verbs.WrOpcode;
import org.agrona.BitUtil;
import org.agrona.concurrent.broadcast.BroadcastBufferDescriptor;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The C header a second client library builds on ({@code src/main/c/include/rnic/driver_protocol.h}) against the
 * Java layouts, as the DPDK layout is checked at start-up: {@code src/test/c/print_protocol.c} is compiled against
 * the header with gcc and prints every constant the header defines and every length it computes; each is compared
 * with the Java constant of the same name (by class and prefix, reflection) or the Java computation. A constant that
 * changes on one side only fails here, and so does a Java constant of these classes without a name in the header, or
 * a name of the header without a Java constant. Every command's and answer's flyweight is among these classes: each
 * field's offset and each message's length is compared, both ways, and each type's length ({@code
 * rnic_command_length}, {@code rnic_answer_length}) with {@link ControlProtocol#commandLength}'s.
 */
class ProtocolHeaderTest
{
    private static final Path INCLUDE = Path.of("src/main/c/include");
    private static final Path HEADER = INCLUDE.resolve("rnic/driver_protocol.h");
    private static final Path PROGRAM = Path.of("src/test/c/print_protocol.c");
    private static final Pattern DEFINE = Pattern.compile("^#define (RNIC_[A-Z0-9_]+)[ \\t]+\\S", Pattern.MULTILINE);
    private static final Pattern FUNCTION = Pattern.compile("^(rnic_[a-z0-9_]+)\\(([-0-9,]*)\\)$");

    /** Every command's and answer's flyweight, by the prefix of its struct's names in the header. */
    private static final Map<Class<?>, String> MESSAGES = messages();

    @TempDir
    Path work;

    @Test
    void shouldGiveEveryJavaLayoutConstantItsValueInTheHeader() throws Exception
    {
        final Map<String, String> printed = compileAndRun();
        final Map<String, Object> java = javaConstants();
        final List<String> mismatches = new ArrayList<>();
        int compared = 0;
        for (final Map.Entry<String, Object> constant : java.entrySet())
        {
            final String c = printed.get(constant.getKey());
            final String expected = constant.getValue() instanceof String text ? '"' + text + '"' :
                constant.getValue().toString();
            if (c == null)
            {
                mismatches.add(constant.getKey() + ": Java has " + expected + ", the header has no such name");
            }
            else if (!c.equals(expected))
            {
                mismatches.add(constant.getKey() + ": Java has " + expected + ", the header " + c);
            }
            compared++;
        }
        final TreeSet<String> headerOnly = new TreeSet<>();
        for (final String name : printed.keySet())
        {
            if (name.startsWith("RNIC_") && !java.containsKey(name))
            {
                headerOnly.add(name);
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " of " + compared + " constants differ between " + HEADER +
            " and the Java layouts:\n  " + String.join("\n  ", mismatches));
        assertTrue(headerOnly.isEmpty(), "the header defines constants no Java class names (name them in the Java " +
            "class the header mirrors, or remove them): " + headerOnly);
        assertTrue(compared > 300, "only " + compared + " constants compared: is the class list complete?");
    }

    @Test
    void shouldGiveEveryFieldOfEveryCommandAndAnswerItsOffsetAndLengthInTheHeader() throws Exception
    {
        final Map<String, String> printed = compileAndRun();
        final List<String> mismatches = new ArrayList<>();
        int fields = 0;
        for (final Map.Entry<Class<?>, String> message : MESSAGES.entrySet())
        {
            final Map<String, Object> java = new LinkedHashMap<>();
            add(java, message.getKey(), message.getValue(), false);
            assertTrue(java.containsKey(message.getValue() + "LENGTH") || java.containsKey(message.getValue() +
                "MAX_LENGTH"), message.getKey().getSimpleName() + " declares no LENGTH");
            for (final Map.Entry<String, Object> field : java.entrySet())
            {
                final String c = printed.get(field.getKey());
                if (!field.getValue().toString().equals(c))
                {
                    mismatches.add(field.getKey() + ": " + message.getKey().getSimpleName() + " has " +
                        field.getValue() + ", the header " + (c == null ? "no such name" : c));
                }
                fields++;
            }
            for (final String name : printed.keySet())
            {
                if (name.startsWith(message.getValue()) && !java.containsKey(name) && MESSAGES.values().stream()
                    .noneMatch(other -> other.length() > message.getValue().length() && name.startsWith(other)))
                {
                    mismatches.add(name + ": in the header, not in " + message.getKey().getSimpleName());
                }
            }
        }
        assertTrue(mismatches.isEmpty(), mismatches.size() + " offsets or lengths differ between " + HEADER +
            " and the flyweights:\n  " + String.join("\n  ", mismatches));
        assertTrue(fields > 140, "only " + fields + " offsets and lengths compared");
    }

    @Test
    void shouldComputeTheFileLengthsTheDriverChecks() throws Exception
    {
        final Map<String, String> printed = compileAndRun();
        int compared = 0;
        for (final Map.Entry<String, String> line : printed.entrySet())
        {
            final Matcher call = FUNCTION.matcher(line.getKey());
            if (!call.matches())
            {
                continue;
            }
            final String[] parts = call.group(2).isEmpty() ? new String[0] : call.group(2).split(",");
            final int[] a = new int[parts.length];
            for (int i = 0; i < parts.length; i++)
            {
                a[i] = Integer.parseInt(parts[i]);
            }
            assertEquals(javaLength(call.group(1), a), Long.parseLong(line.getValue()), line.getKey());
            compared++;
        }
        assertTrue(compared > 300, "only " + compared + " computations compared");
    }

    private static long javaLength(final String function, final int[] a)
    {
        return switch (function)
        {
            case "rnic_wq_entry_length" -> WorkRequestRing.entryLength(a[0], a[1]);
            case "rnic_wq_required_bytes" -> WorkRequestRing.requiredBytes(a[0], a[1]);
            case "rnic_srq_ring_length" -> QpQueuesLayout.srqRingLength(a[0], a[1]);
            case "rnic_srq_file_length" -> QpQueuesLayout.srqFileLength(a[0], a[1]);
            case "rnic_qpf_recv_queue_offset" -> QpQueuesLayout.recvQueueOffset(a[0], a[1]);
            case "rnic_qpf_send_queue_offset" -> QpQueuesLayout.sendQueueOffset();
            case "rnic_qpf_file_length" -> QpQueuesLayout.fileLength(a[0], a[1], a[2], a[3]);
            case "rnic_cq_required_bytes" -> CompletionQueue.requiredBytes(a[0]);
            case "rnic_cq_file_length" -> QpQueuesLayout.completionQueueFileLength(a[0]);
            case "rnic_ev_file_length" -> EventRing.fileLength();
            case "rnic_command_length" -> ControlProtocol.commandLength(a[0]);
            case "rnic_answer_length" -> ControlProtocol.answerLength(a[0]);
            case "rnic_cnc_file_length" -> CncFile.fileLength(new CncFile.Lengths(a[0], a[1], a[2], a[3], a[4]));
            default -> throw new AssertionError("print_protocol.c prints " + function + ", which this test does not " +
                "know");
        };
    }

    /** Every constant the header mirrors, by its name in the header. */
    private static Map<String, Object> javaConstants() throws Exception
    {
        final Map<String, Object> constants = new LinkedHashMap<>();
        add(constants, CncFile.class, "RNIC_CNC_", false);
        add(constants, ControlProtocol.class, "RNIC_CTL_", false);
        add(constants, CmIdCodec.class, "RNIC_CMID_", false);
        for (final Map.Entry<Class<?>, String> message : MESSAGES.entrySet())
        {
            add(constants, message.getKey(), message.getValue(), false);
        }
        add(constants, QpQueuesLayout.class, "RNIC_QPF_", false);
        add(constants, EventRing.class, "RNIC_EV_", false);
        add(constants, DeviceInfo.class, "RNIC_DEVINFO_", true);
        add(constants, DriverProcess.class, "RNIC_DRV_", false);
        add(constants, Class.forName("io.rnic.client.DriverConnection"), "RNIC_LIVE_", true);
        add(constants, FdSocket.class, "RNIC_FDS_", false);
        add(constants, SharedMemory.class, "RNIC_SHM_", false);
        add(constants, WorkRequestRing.class, "RNIC_WQ_", false);
        add(constants, CompletionQueue.class, "RNIC_CQ_", false);
        add(constants, QpState.class, "RNIC_QP_STATE_", false);
        for (final QpType type : QpType.values())
        {
            constants.put("RNIC_QP_TYPE_" + type.name(), (long)type.value()); // ibv_qp_type's, not the ordinal
        }
        for (final PathMtu mtu : PathMtu.values())
        {
            constants.put("RNIC_PATH_" + mtu.name(), (long)mtu.value()); // ibv_mtu's
        }
        add(constants, CmState.class, "RNIC_CM_STATE_", false);
        add(constants, WcStatus.class, "RNIC_WC_STATUS_", false);
        add(constants, WcOpcode.class, "RNIC_WC_OPCODE_", false);
        add(constants, WorkCompletion.class, "RNIC_WC_", false);
        add(constants, WrOpcode.class, "RNIC_WR_", false);
        add(constants, SendFlags.class, "RNIC_SEND_", false);
        add(constants, AccessFlags.class, "RNIC_ACCESS_", false);
        add(constants, QpAttrMask.class, "RNIC_QP_MASK_", false);
        add(constants, SrqAttrMask.class, "RNIC_SRQ_MASK_", false);
        add(constants, AsyncEvent.class, "RNIC_EVENT_", false);
        add(constants, Errno.class, "RNIC_ERRNO_", false);
        add(constants, ScatterGatherList.class, "RNIC_", false);
        // Agrona's layouts inside the CnC file
        add(constants, RingBufferDescriptor.class, "RNIC_RB_", false);
        add(constants, org.agrona.concurrent.ringbuffer.RecordDescriptor.class, "RNIC_RB_RECORD_", false);
        add(constants, BroadcastBufferDescriptor.class, "RNIC_BC_", false);
        add(constants, org.agrona.concurrent.broadcast.RecordDescriptor.class, "RNIC_BC_RECORD_", false);
        add(constants, CountersReader.class, "RNIC_COUNTERS_", false);
        add(constants, DistinctErrorLog.class, "RNIC_ERRLOG_", false);
        constants.put("RNIC_RB_PADDING_MSG_TYPE_ID", ManyToOneRingBuffer.PADDING_MSG_TYPE_ID);
        constants.put("RNIC_CACHE_LINE_LENGTH", BitUtil.CACHE_LINE_LENGTH);
        return constants;
    }

    /**
     * The static final numbers and strings {@code type} declares (private ones too when asked), or an enum's
     * constants by ordinal, each under {@code prefix} + its Java name.
     */
    private static void add(
        final Map<String, Object> into, final Class<?> type, final String prefix, final boolean includePrivate)
        throws IllegalAccessException
    {
        if (type.isEnum())
        {
            for (final Object constant : type.getEnumConstants())
            {
                into.put(prefix + ((Enum<?>)constant).name(), (long)((Enum<?>)constant).ordinal());
            }
            return;
        }
        for (final Field field : type.getDeclaredFields())
        {
            final int modifiers = field.getModifiers();
            final Class<?> fieldType = field.getType();
            final boolean number = fieldType == int.class || fieldType == long.class;
            if (!Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers) || field.isSynthetic() ||
                (!number && fieldType != String.class) || (Modifier.isPrivate(modifiers) && !includePrivate))
            {
                continue;
            }
            field.setAccessible(true);
            final Object value = field.get(null);
            into.put(prefix + field.getName(), number ? ((Number)value).longValue() : value);
        }
    }

    private static Map<Class<?>, String> messages()
    {
        final Map<Class<?>, String> messages = new LinkedHashMap<>();
        messages.put(CorrelatedMessageFlyweight.class, "RNIC_MSG_");
        messages.put(ErrorAnswerFlyweight.class, "RNIC_ERROR_");
        for (final Class<?> type : List.of(AttachFlyweight.class, HandleFlyweight.class, RegisterMrFlyweight.class,
            CreateCqFlyweight.class, CreateQpFlyweight.class, ModifyQpFlyweight.class, ResolveMacFlyweight.class,
            CmPortFlyweight.class, CmConnectFlyweight.class, CmAcceptFlyweight.class, CmRejectFlyweight.class,
            AllocMwFlyweight.class, CreateSrqFlyweight.class, ModifySrqFlyweight.class, OpenAsyncEventsFlyweight.class,
            AttachedFlyweight.class, MrRegisteredFlyweight.class, CqCreatedFlyweight.class, QpCreatedFlyweight.class,
            QpModifiedFlyweight.class, MacResolvedFlyweight.class, MwAllocatedFlyweight.class,
            SrqCreatedFlyweight.class, SrqAttributesFlyweight.class, AsyncEventsOpenedFlyweight.class))
        {
            // CreateQpFlyweight: RNIC_CREATE_QP_
            final String name = type.getSimpleName().replace("Flyweight", "").replace("RegisterMr", "RegMr");
            messages.put(type, "RNIC_" + name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase() + "_");
        }
        return messages;
    }

    /** The program's output, by name; compiled and run once per test (a few hundred ms). */
    private Map<String, String> compileAndRun() throws IOException, InterruptedException
    {
        final Path gcc = onPath("gcc");
        assumeTrue(gcc != null, "gcc is not installed (deploy/setup.sh installs it): the C header was not checked");
        final StringBuilder names = new StringBuilder();
        final Matcher define = DEFINE.matcher(Files.readString(HEADER, StandardCharsets.UTF_8));
        while (define.find())
        {
            names.append("RNIC_NAME(").append(define.group(1)).append(")\n");
        }
        Files.writeString(work.resolve("protocol_names.inc"), names);
        final Path binary = work.resolve("print_protocol");
        run(List.of(gcc.toString(), "-Wall", "-Wextra", "-Werror", "-std=c11", "-pedantic", "-I", INCLUDE.toString(),
            "-I", work.toString(), PROGRAM.toString(), "-o", binary.toString()));
        final Map<String, String> printed = new LinkedHashMap<>();
        for (final String line : run(List.of(binary.toString())).split("\n"))
        {
            final int space = line.indexOf(' ');
            assertTrue(space > 0, "not a NAME VALUE line: " + line);
            printed.put(line.substring(0, space), line.substring(space + 1));
        }
        return printed;
    }

    private String run(final List<String> command) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), String.join(" ", command) + " failed:\n" + output);
        return output;
    }

    private static Path onPath(final String program)
    {
        for (final String directory : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            final Path candidate = Path.of(directory, program);
            if (!directory.isEmpty() && Files.isExecutable(candidate))
            {
                return candidate;
            }
        }
        return null;
    }
}
