package dev.ingestor.intake;

import java.util.Set;

import dev.ingestor.config.IngestorProperties;
import org.apache.camel.Header;
import org.springframework.stereotype.Component;

/** The checks a file passes before any byte of it is stored: a known supplier and a usable name. */
@Component
public class IntakeGate {

    private final Set<String> suppliers;

    public IntakeGate(IngestorProperties properties) {
        this.suppliers = Set.copyOf(properties.getSuppliers().keySet());
    }

    public void check(@Header(IntakeHeaders.SUPPLIER) String supplier, @Header(IntakeHeaders.FILE_NAME) String fileName) {
        String where = "supplier=" + FileNameRule.printable(supplier) + " file=" + FileNameRule.printable(fileName);
        if (supplier == null || !suppliers.contains(supplier)) {
            throw new RejectedDropException(where, "unknown supplier " + FileNameRule.printable(supplier)
                    + "; configured suppliers are " + suppliers.stream().sorted().toList());
        }
        FileNameRule.problem(fileName).ifPresent(reason -> {
            throw new RejectedDropException(where, reason);
        });
    }

    public boolean isSupplier(String code) {
        return suppliers.contains(code);
    }

    public Set<String> suppliers() {
        return suppliers;
    }
}
