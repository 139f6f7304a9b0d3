//! A number field of a block, reached by its path and set in place: the
//! typed `set` behind a slider and a sweep's point, with no JSON between.
//! Each block's spec says which of its fields are numbers
//! (`number_mut`, beside the spec); this file says how a value goes in.
//!
//! Guarantees:
//! - A value goes in only if its field's type takes it: finite, and for a
//!   count a whole number in the type's range. The field is left as it was
//!   otherwise, and the error says why.
//! - Setting a value here gives the block reading the same value from the
//!   file would, for every value a file writes as a plain number (checked
//!   field by field against the JSON path in `scenario::setting`'s tests);
//!   a whole number of 9×10^15 or more, which a file writes in scientific
//!   notation and serde then refuses for a count, is taken here up to the
//!   count's largest value. Whether the block then holds together is
//!   its `validate`'s to say.

/// A number field, borrowed from its block.
#[derive(Debug)]
pub enum NumberField<'a> {
    Real(&'a mut f64),
    /// A real number that may be absent; setting one makes it present.
    MaybeReal(&'a mut Option<f64>),
    Whole64(&'a mut u64),
    Whole32(&'a mut u32),
    /// A whole number that may be absent; setting one makes it present.
    MaybeWhole32(&'a mut Option<u32>),
    Whole16(&'a mut u16),
    Whole8(&'a mut u8),
}

/// Why a value does not go into a field.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NumberError {
    #[error("must be a finite number; got {0}")]
    NotFinite(f64),
    #[error("must be a whole number; got {0}")]
    NotWhole(f64),
    #[error("must be 0 or more; got {0}")]
    Negative(f64),
    #[error("must be at most {max}; got {value}")]
    TooLarge { value: f64, max: u64 },
}

/// `v` as a whole number of at most `max`.
fn whole(v: f64, max: u64) -> Result<u64, NumberError> {
    if v.fract() != 0.0 {
        return Err(NumberError::NotWhole(v));
    }
    if v < 0.0 {
        return Err(NumberError::Negative(v));
    }
    // `u64::MAX as f64` rounds up to 2^64, which does not fit.
    if v > max as f64 || (max == u64::MAX && v >= 18_446_744_073_709_551_616.0) {
        return Err(NumberError::TooLarge { value: v, max });
    }
    Ok(v as u64)
}

impl NumberField<'_> {
    /// The value now (an absent one as none).
    pub fn get(&self) -> Option<f64> {
        match self {
            NumberField::Real(v) => Some(**v),
            NumberField::MaybeReal(v) => **v,
            NumberField::Whole64(v) => Some(**v as f64),
            NumberField::Whole32(v) => Some(**v as f64),
            NumberField::MaybeWhole32(v) => v.map(f64::from),
            NumberField::Whole16(v) => Some(f64::from(**v)),
            NumberField::Whole8(v) => Some(**v as f64),
        }
    }

    /// Whether the field counts (takes whole numbers only).
    pub fn is_whole(&self) -> bool {
        matches!(self, NumberField::Whole64(_) | NumberField::Whole32(_) | NumberField::MaybeWhole32(_) | NumberField::Whole16(_) | NumberField::Whole8(_))
    }

    /// Puts `v` in the field, or says why it does not fit.
    pub fn set(self, v: f64) -> Result<(), NumberError> {
        if !v.is_finite() {
            return Err(NumberError::NotFinite(v));
        }
        match self {
            NumberField::Real(field) => *field = v,
            NumberField::MaybeReal(field) => *field = Some(v),
            // Above 2^53 a float holds only even wholes; the JSON path
            // reads those the same.
            NumberField::Whole64(field) => *field = whole(v, u64::MAX)?,
            NumberField::Whole32(field) => *field = whole(v, u32::MAX as u64)? as u32,
            NumberField::MaybeWhole32(field) => *field = Some(whole(v, u32::MAX as u64)? as u32),
            NumberField::Whole16(field) => *field = whole(v, u16::MAX as u64)? as u16,
            NumberField::Whole8(field) => *field = whole(v, u8::MAX as u64)? as u8,
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_goes_in_only_where_its_type_takes_it() {
        let (mut real, mut maybe, mut count, mut small) = (0.0, None, 0u32, 0u8);
        NumberField::Real(&mut real).set(2.5).unwrap();
        NumberField::MaybeReal(&mut maybe).set(0.25).unwrap();
        NumberField::Whole32(&mut count).set(7.0).unwrap();
        assert_eq!((real, maybe, count), (2.5, Some(0.25), 7));
        assert_eq!(NumberField::Whole32(&mut count).set(7.5), Err(NumberError::NotWhole(7.5)));
        assert_eq!(NumberField::Whole32(&mut count).set(-1.0), Err(NumberError::Negative(-1.0)));
        assert_eq!(NumberField::Whole8(&mut small).set(256.0).unwrap_err().to_string(), "must be at most 255; got 256");
        assert_eq!(NumberField::Whole64(&mut 0).set(2.5).unwrap_err().to_string(), "must be a whole number; got 2.5");
        assert!(NumberField::Whole64(&mut 0).set(18_446_744_073_709_551_616.0).is_err(), "2^64 does not fit");
        assert_eq!(NumberField::Whole32(&mut count).set(4_294_967_296.0), Err(NumberError::TooLarge { value: 4_294_967_296.0, max: u32::MAX as u64 }));
        let mut top = 0u64;
        NumberField::Whole64(&mut top).set(9_007_199_254_740_992.0).unwrap();
        assert_eq!(top, 1 << 53);
        assert_eq!(NumberField::Real(&mut real).set(f64::NAN).unwrap_err().to_string(), "must be a finite number; got NaN");
        assert_eq!((real, count, small), (2.5, 7, 0), "a refused value leaves the field as it was");
        assert!(NumberField::Whole8(&mut small).is_whole() && !NumberField::Real(&mut real).is_whole());
        assert_eq!(NumberField::MaybeReal(&mut None).get(), None);
    }
}
