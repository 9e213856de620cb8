//! Tops: [`switch`] (the whole switch), its register map [`regmap`], and the
//! foundation's crossbar [`fabric`].
pub mod fabric;
pub mod regmap;
pub mod switch;
pub mod xgmii_switch;
