package io.rnic.client;

import io.rnic.cnc.CncException;
import io.rnic.cnc.CncFile;
import io.rnic.cnc.ControlProtocol;
import io.rnic.cnc.DriverProcess;
import io.rnic.cnc.command.CorrelatedMessageFlyweight;
import io.rnic.cnc.command.ErrorAnswerFlyweight;
import io.rnic.shm.FdSocket;
import io.rnic.shm.PidLockFile;
import io.rnic.shm.ShmException;
import io.rnic.verbs.VerbsException;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A client's link to its driver, as Aeron's client conductor: commands into the CnC's ring, answers picked from the
 * broadcast by client id and correlation id, a keepalive thread that tells the driver this client lives and watches the
 * driver's heartbeat. A driver whose process died (its lock free: {@link DriverProcess}) is gone, noticed within a
 * keepalive interval, or {@link #PROCESS_CHECK_INTERVAL_NS} by a call waiting for its answer; one that stops beating for
 * its client timeout, or leaves a command unanswered that long, is gone too: every later call, posts included, fails at
 * once with one line saying so, never a hang.
 * <p>
 * Memory goes to the driver over its {@link ControlProtocol#FD_SOCKET_FILE_NAME} socket: the connection says hello
 * with a random nonce before {@code ATTACH} carries it, and each memfd is sent with a fresh token before the command
 * that names it ({@link #passFd}). Closing the socket (this process exits) tells the driver the client is gone.
 */
final class DriverConnection implements AutoCloseable
{
    private static final long MAX_KEEPALIVE_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(500);
    /** How often a call waiting for an answer asks whether the driver's process still holds its lock. */
    static final long PROCESS_CHECK_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(10);

    private final Path directory;
    private final CncFile cnc;
    private final ManyToOneRingBuffer toDriver;
    private final CopyBroadcastReceiver answers;
    private final long clientId;
    private final long nonce;
    private final FdSocket fdSocket;
    private final long driverTimeoutNs;
    private final UnsafeBuffer command = new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH));
    private final UnsafeBuffer answer = new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH));
    private final CorrelatedMessageFlyweight commandHeader = new CorrelatedMessageFlyweight().wrap(command, 0);
    private final CorrelatedMessageFlyweight answerHeader = new CorrelatedMessageFlyweight();
    private final ErrorAnswerFlyweight error = new ErrorAnswerFlyweight();
    private final CorrelatedMessageFlyweight keepalive = new CorrelatedMessageFlyweight()
        .wrap(new UnsafeBuffer(ByteBuffer.allocateDirect(CorrelatedMessageFlyweight.LENGTH)), 0);
    private final Thread keepaliveThread;
    /** The driver's lock file, kept open to ask whether its process lives; null when it cannot be read. */
    private final PidLockFile.Probe driverLock;
    private long lastProcessCheckNs;
    private long nextCorrelationId = 1;
    private long nextFdToken = 1;
    private volatile String gone;
    /** Run once by the keepalive thread when it finds the driver gone: wakes whoever sleeps waiting for it. */
    private volatile Runnable onGone = () -> { };
    private volatile boolean closed;
    // the answer being waited for, written by the broadcast handler on the calling thread
    private long awaitedCorrelationId;
    private boolean answered;
    private int answerType;
    private int answerLength;
    private int errorCode;
    private int errorErrno;
    private String errorMessage;

    DriverConnection(final Path directory)
    {
        this.directory = directory;
        this.cnc = CncFile.open(directory);
        this.toDriver = new ManyToOneRingBuffer(cnc.toDriverBuffer());
        this.answers = new CopyBroadcastReceiver(new BroadcastReceiver(cnc.toClientsBuffer()),
            new UnsafeBuffer(ByteBuffer.allocateDirect(ControlProtocol.MAX_MESSAGE_LENGTH + 4096)));
        final SecureRandom random = new SecureRandom();
        this.clientId = random.nextLong();
        this.nonce = random.nextLong();
        this.driverTimeoutNs = cnc.clientTimeoutNs();
        try
        {
            this.driverLock = openDriverLock(directory);
        }
        catch (final CncException ex)
        {
            cnc.close();
            throw ex;
        }
        checkHeartbeat();
        if (gone != null)
        {
            closeDriverLock();
            cnc.close();
            throw new CncException(gone);
        }
        final Path socketPath = directory.resolve(ControlProtocol.FD_SOCKET_FILE_NAME);
        try
        {
            this.fdSocket = FdSocket.connect(socketPath);
        }
        catch (final ShmException ex)
        {
            closeDriverLock();
            cnc.close();
            throw new CncException("cannot attach to the rnic driver at " + directory + ": " + ex.getMessage());
        }
        try
        {
            send(nonce, -1, ControlProtocol.ATTACH); // the hello
        }
        catch (final RuntimeException ex)
        {
            fdSocket.close();
            closeDriverLock();
            cnc.close();
            throw ex;
        }
        this.keepaliveThread = Thread.ofPlatform().daemon().name("rnic-client-keepalive").unstarted(this::keepAlive);
    }

    /** The driver's lock, to watch; a missing one is a driver not running (a probe of nothing held says so). */
    private static PidLockFile.Probe openDriverLock(final Path directory)
    {
        try
        {
            return PidLockFile.Probe.open(directory.resolve(DriverProcess.LOCK_FILE_NAME));
        }
        catch (final NoSuchFileException ex)
        {
            throw new CncException(DriverProcess.notRunningMessage(directory, -1) + ": start it again (bin/rnic " +
                "driver)");
        }
        catch (final IOException ex)
        {
            return null; // not readable to us: the heartbeat alone tells
        }
    }

    private void closeDriverLock()
    {
        if (driverLock != null)
        {
            driverLock.close();
        }
    }

    void start()
    {
        keepaliveThread.start();
    }

    long clientId()
    {
        return clientId;
    }

    /** What {@code ATTACH} carries to link this client to its socket connection. */
    long nonce()
    {
        return nonce;
    }

    /**
     * Sends {@code fd} to the driver with a fresh token, to be named in the next command instead of the descriptor.
     *
     * @return the token.
     * @throws CncException when the driver is gone or does not take it within its client timeout.
     */
    synchronized long passFd(final int fd, final int commandType)
    {
        checkAlive();
        final long token = nextFdToken++;
        send(token, fd, commandType);
        return token;
    }

    private void send(final long tokenLow, final int fd, final int commandType)
    {
        final long deadlineNs = System.nanoTime() + driverTimeoutNs;
        try
        {
            while (!fdSocket.send(clientId, tokenLow, fd))
            {
                waitOrFail(deadlineNs, commandType); // the socket is full: the driver is behind
            }
        }
        catch (final ShmException ex)
        {
            throw new CncException("cannot pass memory to the rnic driver at " + directory + " (" +
                ControlProtocol.commandName(commandType) + "): " + ex.getMessage());
        }
    }

    CncFile cnc()
    {
        return cnc;
    }

    /** Null while the driver lives; otherwise why it is gone. */
    String gone()
    {
        return gone;
    }

    void checkAlive()
    {
        final String reason = gone;
        if (reason != null)
        {
            throw new CncException(reason);
        }
    }

    /** Where {@link DriverProxy} writes a command's fields (under its lock) before {@link #call}. */
    MutableDirectBuffer commandBuffer()
    {
        return command;
    }

    /** Where the last answer is, from offset 0, valid until the next call. */
    MutableDirectBuffer answerBuffer()
    {
        return answer;
    }

    /**
     * Sends the command of {@code length} bytes written in {@link #commandBuffer()} (its header is written here) and
     * waits for its answer, which must be of {@code answerType}. The answer waits in {@link #answerBuffer()}.
     *
     * @throws VerbsException with the driver's one line when it refused the command.
     * @throws CncException when the driver is gone or does not answer within its client timeout.
     */
    synchronized void call(final int type, final int length, final int answerType)
    {
        callWaiting(0, type, length, answerType);
    }

    /**
     * As {@link #call}, for a command the driver answers only after waiting up to {@code driverWaitNs} on this
     * client's behalf (for a neighbour): the answer is awaited that much longer, so that a slow peer is never taken
     * for a dead driver.
     */
    synchronized void callWaiting(final long driverWaitNs, final int type, final int length, final int answerType)
    {
        checkAlive();
        final long correlationId = nextCorrelationId++;
        commandHeader.header(clientId, correlationId);
        final long deadlineNs = System.nanoTime() + driverTimeoutNs;
        while (!toDriver.write(type, command, 0, length))
        {
            waitOrFail(deadlineNs, type); // the ring is full: the driver is behind
        }
        awaitedCorrelationId = correlationId;
        answered = false;
        final long answerDeadlineNs = System.nanoTime() + driverTimeoutNs + driverWaitNs;
        while (true)
        {
            try
            {
                answers.receive(this::onAnswer);
            }
            catch (final IllegalStateException lapped)
            {
                // others' answers overran us while we were away: ours, sent after our command, is still to come
            }
            if (answered)
            {
                break;
            }
            waitOrFail(answerDeadlineNs, type);
        }
        if (errorMessage != null)
        {
            if (errorCode == ControlProtocol.ERROR_NOT_ATTACHED || errorCode == ControlProtocol.ERROR_PROTOCOL_VERSION)
            {
                gone = errorMessage;
                throw new CncException(errorMessage);
            }
            throw errorErrno != 0 ? VerbsException.relayed(errorErrno, errorMessage) : new VerbsException(errorMessage);
        }
        if (this.answerType != answerType || answerLength != ControlProtocol.answerLength(answerType))
        {
            gone = "the rnic driver at " + directory + " answered " + ControlProtocol.commandName(type) + " with " +
                answerLength + " bytes of type " + this.answerType + ", not " +
                ControlProtocol.answerLength(answerType) + " of type " + answerType + ": a driver of another rnic " +
                "build? (restart it from this build)";
            throw new CncException(gone);
        }
    }

    private void waitOrFail(final long deadlineNs, final int type)
    {
        checkAlive();
        final long nowNs = System.nanoTime();
        if (nowNs - lastProcessCheckNs >= PROCESS_CHECK_INTERVAL_NS)
        {
            lastProcessCheckNs = nowNs; // a dead driver's answer never comes: ask its lock, not only the clock
            checkHeartbeat();
            checkAlive();
        }
        if (nowNs > deadlineNs)
        {
            // as Aeron's client on a driver timeout: the connection is over, for the post calls too, which check it
            checkHeartbeat();
            if (gone == null)
            {
                gone = "the rnic driver at " + directory + " did not answer " + ControlProtocol.commandName(type) +
                    " within " + TimeUnit.NANOSECONDS.toMillis(driverTimeoutNs) + " ms: is it overloaded or " +
                    "stopped? (bin/rnic stat --dir " + directory + ")";
            }
            throw new CncException(gone);
        }
        LockSupport.parkNanos(20_000);
    }

    private void onAnswer(final int type, final MutableDirectBuffer buffer, final int offset, final int length)
    {
        answerHeader.wrap(buffer, offset);
        if (length < CorrelatedMessageFlyweight.LENGTH || answerHeader.clientId() != clientId ||
            answerHeader.correlationId() != awaitedCorrelationId)
        {
            return;
        }
        answered = true;
        answerType = type;
        answerLength = length;
        if (type == ControlProtocol.ERROR)
        {
            error.wrap(buffer, offset);
            errorCode = error.code();
            errorErrno = error.errnoValue();
            errorMessage = error.isWhole(length) ? error.message() : "the rnic driver at " + directory + " sent an " +
                "error of " + length + " bytes (" + error.messageLength() + " of message): another rnic build?";
            return;
        }
        errorMessage = null;
        if (length == ControlProtocol.answerLength(type)) // else refused by the call
        {
            answer.putBytes(0, buffer, offset, length);
        }
    }

    private void keepAlive()
    {
        final long intervalNs = Math.min(MAX_KEEPALIVE_INTERVAL_NS, driverTimeoutNs / 5);
        keepalive.header(clientId, 0);
        while (!closed && gone == null)
        {
            toDriver.write(ControlProtocol.KEEPALIVE, keepalive.buffer(), 0, CorrelatedMessageFlyweight.LENGTH);
            checkHeartbeat();
            LockSupport.parkNanos(intervalNs);
        }
        if (!closed)
        {
            onGone.run();
        }
    }

    /** What to run when the driver is found gone (a CM waiter's wake-up): it then says so rather than time out. */
    void onGone(final Runnable action)
    {
        this.onGone = action;
    }

    private void checkHeartbeat()
    {
        final long ageMs = System.currentTimeMillis() - cnc.heartbeatMs();
        if (!Files.exists(directory.resolve(CncFile.FILE_NAME)))
        {
            gone = "the rnic driver at " + directory + " has stopped: start it again (bin/rnic driver) and reopen " +
                "the context";
        }
        else if (driverLock != null && !driverLock.held())
        {
            gone = DriverProcess.notRunningMessage(directory, cnc.driverPid()) + ": start it again (bin/rnic " +
                "driver) and reopen the context";
        }
        else if (TimeUnit.MILLISECONDS.toNanos(ageMs) > driverTimeoutNs)
        {
            gone = "the rnic driver at " + directory + " stopped beating " + ageMs + " ms ago (pid " +
                cnc.driverPid() + "): start it again (bin/rnic driver) and reopen the context";
        }
    }

    /** Stops the keepalive thread, closes the socket and unmaps the CnC file. */
    public void close()
    {
        closed = true;
        keepaliveThread.interrupt();
        try
        {
            if (keepaliveThread.isAlive())
            {
                keepaliveThread.join(); // it reads the mapping: it must be done before the unmap
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        fdSocket.close();
        closeDriverLock();
        cnc.close();
    }
}
