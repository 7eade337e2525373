package dev.ingestor.web;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.stream.Stream;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Nothing of a multipart upload stays on disk after its answer, whatever the answer.
 *
 * <p>The container writes the parts to its temporary folder and deletes them itself when the request ends.
 * Camel's platform-http binding, however, copies every file part once more into the folder named by the
 * servlet context attribute {@link ServletContext#TEMPDIR} and deletes none of them. So a multipart request
 * sees a servlet context whose TEMPDIR is a folder of its own, and that folder goes when the request ends.
 *
 * <p>Waits for CAMEL-24593 (camel-platform-http-starter deletes its copies when the exchange is done), merged for
 * camel-spring-boot 4.22.1; 4.22.0, the newest served to this build, still leaves them. When the build takes a
 * release with the fix, this filter goes and {@code MultipartCleanupTest} stays as the check.
 */
@Component
class MultipartCleanupFilter extends OncePerRequestFilter implements Ordered {

    private static final Logger LOG = LoggerFactory.getLogger("dev.ingestor.http");

    @Override
    public int getOrder() { return FilterOrder.MULTIPART_CLEANUP; }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String type = request.getContentType();
        return type == null || !type.trim().toLowerCase(Locale.ROOT).startsWith("multipart/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        OwnTempDir wrapped = new OwnTempDir(request);
        try {
            chain.doFilter(wrapped, response);
        } finally {
            AfterRequest.run(request, wrapped::deleteFolder);
        }
    }

    /** A request whose servlet context names a temporary folder made for this request alone. */
    private static final class OwnTempDir extends HttpServletRequestWrapper {
        private final ServletContext context;
        private Path folder;

        OwnTempDir(HttpServletRequest request) {
            super(request);
            ServletContext real = request.getServletContext();
            this.context = (ServletContext) Proxy.newProxyInstance(ServletContext.class.getClassLoader(),
                    new Class<?>[] {ServletContext.class}, (proxy, method, args) -> {
                        if (method.getName().equals("getAttribute") && args != null
                                && ServletContext.TEMPDIR.equals(args[0])) {
                            return folder(real);
                        }
                        try {
                            return method.invoke(real, args);
                        } catch (InvocationTargetException e) {
                            throw e.getCause();
                        }
                    });
        }

        @Override
        public ServletContext getServletContext() { return context; }

        private synchronized File folder(ServletContext real) throws IOException {
            if (folder == null) {
                File parent = (File) real.getAttribute(ServletContext.TEMPDIR);
                folder = Files.createTempDirectory(parent.toPath(), "request-");
            }
            return folder.toFile();
        }

        synchronized void deleteFolder() {
            if (folder == null) {
                return;
            }
            try (Stream<Path> all = Files.walk(folder)) {
                for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException e) {
                // a file still open elsewhere; the container's temporary folder is emptied on restart
                LOG.warn("cannot delete the multipart copies in {}: {}", folder, e.getMessage());
            }
        }
    }
}
