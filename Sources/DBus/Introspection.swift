/// Generates introspection XML from interface declarations.
///
/// The same generator writes the committed `dbus/*.xml` files (with
/// documentation comments) and answers `Introspect()` (without them), so
/// the two cannot drift apart.
public enum Introspection {
    static let doctype = """
        <!DOCTYPE node PUBLIC "-//freedesktop//DTD D-BUS Object Introspection 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd">
        """

    /// The XML document of a node: its interfaces and child node names.
    public static func xml(
        interfaces: [DBusInterface], children: [String] = [], includeDocumentation: Bool = false
    ) -> String {
        var out = doctype + "\n<node>\n"
        for interface in interfaces {
            out += xml(interface, includeDocumentation: includeDocumentation)
        }
        for child in children { out += "  <node name=\"\(escape(child))\"/>\n" }
        out += "</node>\n"
        return out
    }

    static func xml(_ interface: DBusInterface, includeDocumentation: Bool) -> String {
        var out = ""
        func doc(_ text: String, indent: String) {
            guard includeDocumentation, !text.isEmpty else { return }
            let lines = wrap(commentSafe(Substring(text)), width: 100 - indent.count - 5)
            if lines.count == 1 {
                out += "\(indent)<!-- \(lines[0]) -->\n"
            } else {
                out += "\(indent)<!--\n"
                for line in lines { out += "\(indent)  \(line)\n" }
                out += "\(indent)-->\n"
            }
        }
        doc(interface.documentation, indent: "  ")
        out += "  <interface name=\"\(escape(interface.name))\">\n"
        for method in interface.methods {
            doc(method.documentation, indent: "    ")
            if method.inputs.isEmpty && method.outputs.isEmpty {
                out += "    <method name=\"\(escape(method.name))\"/>\n"
                continue
            }
            out += "    <method name=\"\(escape(method.name))\">\n"
            for argument in method.inputs { out += arg(argument, direction: "in") }
            for argument in method.outputs { out += arg(argument, direction: "out") }
            out += "    </method>\n"
        }
        for signal in interface.signals {
            doc(signal.documentation, indent: "    ")
            if signal.arguments.isEmpty {
                out += "    <signal name=\"\(escape(signal.name))\"/>\n"
                continue
            }
            out += "    <signal name=\"\(escape(signal.name))\">\n"
            for argument in signal.arguments { out += arg(argument, direction: nil) }
            out += "    </signal>\n"
        }
        for property in interface.properties {
            doc(property.documentation, indent: "    ")
            let head = "    <property name=\"\(escape(property.name))\" type=\"\(escape(property.type.signature))\" access=\"read\""
            if property.emitsChanged {
                out += head + "/>\n"
            } else {
                out += head + ">\n"
                out += "      <annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"false\"/>\n"
                out += "    </property>\n"
            }
        }
        out += "  </interface>\n"
        return out
    }

    private static func arg(_ argument: DBusArgument, direction: String?) -> String {
        var line = "      <arg name=\"\(escape(argument.name))\" type=\"\(escape(argument.type.signature))\""
        if let direction { line += " direction=\"\(direction)\"" }
        return line + "/>\n"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Words of `text` in lines of at most `width` characters (a longer
    /// word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    /// XML comments may not contain `--`.
    private static func commentSafe(_ line: Substring) -> String {
        var out = ""
        for character in line {
            if character == "-" && out.hasSuffix("-") { out += " " }
            out.append(character)
        }
        return out
    }
}
