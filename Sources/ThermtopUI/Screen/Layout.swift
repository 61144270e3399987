import ThermtopCore

/// Where each panel goes for a state and a size, by priority: the header and key line, the
/// low-power line and the state's reason, the Throttling answer, the simulation banner, the sensors (at least three
/// rows), the battery, then the rest of the reason and banner, the selection line, cooling and
/// the policy's tier line, the rest of the sensor list, the battery's detail line and (after
/// `i`) the policy's, and, when rows are left over, a history graph. The "Heating it" panel
/// (when processes are read) sits beside the sensors from `heatBesideWidth` columns, taking
/// the sensor rows' height; on narrower windows it goes under them after the policy line, and
/// drops out first when rows run short (the reason still names the top source). Built from `Rect` splits, so adding a panel
/// (fans) means one more `take`, not new coordinates.
public struct Layout: Sendable, Equatable {
    public var tooSmall = false
    /// Below 60 columns: no bars, sparklines or second battery line.
    public var narrow = false
    public var header = Rect.zero
    public var lowPower = Rect.zero
    public var reason = Rect.zero
    public var banner = Rect.zero
    public var sensorHeading = Rect.zero
    public var sensorList = Rect.zero
    public var sensorFooter = Rect.zero
    public var cooling = Rect.zero
    public var fans = Rect.zero
    public var throttling = Rect.zero
    public var power = Rect.zero
    public var graph = Rect.zero
    public var battery = Rect.zero
    public var policy = Rect.zero
    public var statusLine = Rect.zero
    /// The "Heating it" panel: beside the sensor heading, list and footer, or under them.
    public var heat = Rect.zero
    /// The panel sits beside the sensors (its own title and footer rows).
    public var heatBeside = false
    /// The sensor rows in display order (`AppState.sortedSensors`), sorted once per frame.
    public var rows: [SensorAssessment] = []

    public static let minimumWidth = 40
    public static let minimumHeight = 10
    /// Columns from which rows get bars and sparklines.
    public static let wideWidth = 60
    /// Rows a history graph needs to be worth drawing (title, plot, time axis).
    public static let graphMinimumHeight = 5
    /// Lines the state's reason and the banner may wrap to.
    public static let reasonMaxLines = 3
    public static let bannerMaxLines = 3
    /// Columns from which the "Heating it" panel sits beside the sensors: they keep 100, the
    /// width at which their title, bars and history all have room.
    public static let heatBesideWidth = 150
    /// Groups the panel shows under the sensors on narrower windows.
    public static let heatStackedRows = 3
    /// Groups the panel beside the sensors asks rows for (more scroll).
    public static let heatBesideRows = 8

    /// The panel's columns beside the sensors at this width.
    static func heatWidth(_ width: Int) -> Int { min(64, max(46, width / 4)) }

    /// Rows the sensor list can show.
    public var sensorCapacity: Int { sensorList.height }

    public init(_ state: AppState, width: Int, height: Int) {
        guard width >= Self.minimumWidth, height >= Self.minimumHeight else {
            tooSmall = true
            return
        }
        narrow = width < Self.wideWidth
        var area = Rect(x: 0, y: 0, width: width, height: height)
        (header, area) = area.splitTop(1)
        (area, statusLine) = area.splitBottom(1)
        var budget = area.height
        func take(_ wanted: Int) -> Int {
            let n = min(max(wanted, 0), budget)
            budget -= n
            return n
        }
        let textWidth = width - 2
        let reasonLines = Screen.reasonLines(state, width: textWidth).count
        let bannerLines = Screen.bannerLines(state, width: textWidth).count
        // An empty list still needs rows to say why it is empty.
        rows = state.sortedSensors
        let listed = rows.count
        let heatSources = state.status.heatSources
        let groups = heatSources.map { max(1, $0.sources.count) } ?? 0
        heatBeside = heatSources != nil && width >= Self.heatBesideWidth
        // Beside the sensors the panel shares their rows: the list is as tall as either needs.
        let rows = max(listed == 0 ? 3 : listed, heatBeside ? min(groups, Self.heatBesideRows) : 0)
        let hasCooling = Screen.coolingText(state.status) != nil
        let hasFans = Panels.fansText(state.status) != nil
        let hasPower = Panels.powerText(state.status) != nil

        let lowPowerH = take(1)
        var reasonH = take(1)
        let throttlingH = take(Panels.throttlingText(state.status) != nil ? 1 : 0)
        var bannerH = take(min(bannerLines, 1))
        var listH = take(1 + min(rows, 3)) - 1
        let headingH = listH >= 0 ? 1 : 0
        listH = max(listH, 0)
        var batteryH = take(1)
        reasonH += take(reasonLines - 1)
        bannerH += take(bannerLines - bannerH)
        let footerH = take(1)
        let coolingH = take(hasCooling ? 1 : 0)
        let fansH = take(hasFans ? 1 : 0)
        let powerH = take(hasPower ? 1 : 0)
        var policyH = take(1)
        // Under the sensors: its title and at least one group, or nothing.
        let heatH = heatSources != nil && !heatBeside && budget >= 2 ? take(1 + min(groups, Self.heatStackedRows)) : 0
        listH += take(rows - listH)
        batteryH += take(narrow || state.status.snapshot.batteries.isEmpty ? 0 : 1)
        // What the tier means for software only on request (`i`): the screen is about heat.
        policyH += take(narrow || !state.showPolicy ? 0 : Panels.policyLines(state.status.policy) - 1)
        let spacerH = take(1)
        var graphH = 0
        if !narrow && budget >= Self.graphMinimumHeight {
            graphH = take(budget)
        } else {
            listH += take(budget)
        }

        (lowPower, area) = area.splitTop(lowPowerH)
        (reason, area) = area.splitTop(reasonH)
        (throttling, area) = area.splitTop(throttlingH)
        (banner, area) = area.splitTop(bannerH)
        area = area.splitTop(spacerH).rest
        (sensorHeading, area) = area.splitTop(headingH)
        (sensorList, area) = area.splitTop(listH)
        (sensorFooter, area) = area.splitTop(footerH)
        if heatBeside {
            let block = Rect(x: 0, y: sensorHeading.y, width: width, height: headingH + listH + footerH)
            let w = Self.heatWidth(width)
            heat = block.splitRight(w).right
            sensorHeading.width -= w
            sensorList.width -= w
            sensorFooter.width -= w
        } else {
            (heat, area) = area.splitTop(heatH)
        }
        (cooling, area) = area.splitTop(coolingH)
        (fans, area) = area.splitTop(fansH)
        (power, area) = area.splitTop(powerH)
        (graph, area) = area.splitTop(graphH)
        (battery, area) = area.splitTop(batteryH)
        (policy, area) = area.splitTop(policyH)
    }
}
