/// One step of a filter chain. Consecutive colour stages run fused, in one pass over
/// memory; a spatial stage reads its neighbours (or its position) and so makes a pass
/// of its own.
public enum FilterStage: Sendable {
    case color(ColorMatrix)
    case spatial(any SpatialStage)
}
