package dev.ingestor.security;

import java.io.IOException;
import java.io.PrintWriter;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

/**
 * The response of a request with a permit: the moment anything starts to write the answer (its body, an error,
 * a redirect, a flush), the request's place is given back ({@code release}), before a byte of the answer can
 * reach the client. A client that sends its next request as soon as it has read an answer therefore never
 * finds its previous request still counted. Given back when the answer completes otherwise (an answer with no
 * body); {@code release} runs once.
 */
final class ReleaseWhenAnswering extends HttpServletResponseWrapper {

    private final Runnable release;

    ReleaseWhenAnswering(HttpServletResponse response, Runnable release) {
        super(response);
        this.release = release;
    }

    @Override
    public ServletOutputStream getOutputStream() throws IOException {
        release.run();
        return super.getOutputStream();
    }

    @Override
    public PrintWriter getWriter() throws IOException {
        release.run();
        return super.getWriter();
    }

    @Override
    public void flushBuffer() throws IOException {
        release.run();
        super.flushBuffer();
    }

    @Override
    public void sendError(int sc, String msg) throws IOException {
        release.run();
        super.sendError(sc, msg);
    }

    @Override
    public void sendError(int sc) throws IOException {
        release.run();
        super.sendError(sc);
    }

    @Override
    public void sendRedirect(String location) throws IOException {
        release.run();
        super.sendRedirect(location);
    }
}
