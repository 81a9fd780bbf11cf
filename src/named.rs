//! clap's reading of the core's enums: each value by the one name strum gives
//! it (`setup`'s options and `cli`'s subcommands both take them).

/// clap's value parser for an enum of the core named once by strum: its
/// values in the order declared (the order `--help` lists them), each by its
/// name. (A value enum of clap's would be a trait of clap on a type of the
/// core, which names no command-line crate.)
pub fn named<T>() -> impl clap::builder::TypedValueParser<Value = T>
where
    T: strum::VariantArray + Copy + Into<&'static str> + Send + Sync + 'static,
{
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(
        T::VARIANTS
            .iter()
            .map(|&v| clap::builder::PossibleValue::new(v.into())),
    )
    .try_map(|name: String| {
        T::VARIANTS
            .iter()
            .copied()
            .find(|&v| Into::<&'static str>::into(v) == name)
            .ok_or("not one of the values")
    })
}
